// The graph itself, with no DOM: nodes, edges, sizes, the layered layout
// and the text Claude reads. main.ts draws it and speaks LIP.

export type Shape = "box" | "round" | "ellipse" | "diamond" | "note";
export const SHAPES: readonly Shape[] = ["box", "round", "ellipse", "diamond", "note"];
export const PALETTE = ["gray", "blue", "green", "yellow", "orange", "red", "purple", "pink"] as const;
export type Direction = "down" | "right" | "up" | "left";

export interface Point {
  x: number;
  y: number;
}

export interface GNode {
  id: string;
  label: string;
  x: number; // centre, graph coordinates
  y: number;
  shape: Shape;
  color?: string;
}

export interface GEdge {
  id: string;
  from: string;
  to: string;
  label?: string;
}

export interface Viewport {
  x: number; // graph point at the top-left corner
  y: number;
  zoom: number;
}

/** The wire form of a node: {id, label, at, shape, color?}. */
export interface WireNode {
  id: string;
  label: string;
  at: Point;
  shape: Shape;
  color?: string;
}

export const MAX_LABEL = 200;
export const MAX_NODES = 2000;
export const MAX_EDGES = 5000;
const ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

export function validId(v: unknown): v is string {
  return typeof v === "string" && ID_RE.test(v);
}

export function cleanLabel(v: unknown): string {
  if (typeof v !== "string") return "";
  return v.replace(/\s+/g, " ").trim().slice(0, MAX_LABEL);
}

export function cleanShape(v: unknown, fallback: Shape = "box"): Shape {
  return SHAPES.includes(v as Shape) ? (v as Shape) : fallback;
}

export function cleanColor(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  if ((PALETTE as readonly string[]).includes(v)) return v;
  return /^#[0-9a-fA-F]{6}$/.test(v) ? v.toLowerCase() : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= 1e6 ? v : undefined;
}

export function cleanPoint(v: unknown): Point | undefined {
  if (!v || typeof v !== "object") return undefined;
  const p = v as Record<string, unknown>;
  const x = num(p.x);
  const y = num(p.y);
  return x === undefined || y === undefined ? undefined : { x, y };
}

// ---- sizes -------------------------------------------------------------

const CHAR_W = 7.3; // average width of a 14px system-ui character
const LINE_H = 18;
const WRAP = 24; // characters per line
const MAX_LINES = 3;

export interface Size {
  w: number;
  h: number;
  lines: string[];
}

const sizeCache = new Map<string, Size>();

/** Wraps a label into at most three lines and sizes the node around it. */
export function measure(label: string, shape: Shape): Size {
  const key = shape + "\u0000" + label;
  const hit = sizeCache.get(key);
  if (hit) return hit;
  const words = (label || " ").split(" ");
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    let w = word;
    while (w.length > WRAP) {
      if (line) {
        lines.push(line);
        line = "";
      }
      lines.push(w.slice(0, WRAP));
      w = w.slice(WRAP);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= WRAP) line += " " + w;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  if (lines.length > MAX_LINES) {
    lines.length = MAX_LINES;
    lines[MAX_LINES - 1] = lines[MAX_LINES - 1].slice(0, WRAP - 1) + "…";
  }
  const longest = Math.max(...lines.map((l) => l.length));
  let w = Math.max(72, Math.round(longest * CHAR_W + 32));
  let h = Math.max(40, lines.length * LINE_H + 20);
  if (shape === "diamond") {
    w = Math.round(w * 1.45);
    h = Math.round(h * 1.45);
  } else if (shape === "ellipse") {
    w = Math.round(w * 1.2);
    h = Math.round(h * 1.2);
  }
  const size = { w, h, lines };
  if (sizeCache.size > 5000) sizeCache.clear();
  sizeCache.set(key, size);
  return size;
}

/** An SVG path of the shape, centred on 0,0 (Path2D takes it too). */
export function shapePath(shape: Shape, w: number, h: number): string {
  const x = -w / 2;
  const y = -h / 2;
  const f = (n: number) => Math.round(n * 10) / 10;
  switch (shape) {
    case "ellipse": {
      const rx = w / 2;
      const ry = h / 2;
      return `M${f(-rx)},0A${f(rx)},${f(ry)} 0 1,0 ${f(rx)},0A${f(rx)},${f(ry)} 0 1,0 ${f(-rx)},0Z`;
    }
    case "diamond":
      return `M0,${f(y)}L${f(-x)},0L0,${f(-y)}L${f(x)},0Z`;
    case "note": {
      const c = 12;
      return `M${f(x)},${f(y)}H${f(-x - c)}L${f(-x)},${f(y + c)}V${f(-y)}H${f(x)}Z`;
    }
    default: {
      const r = shape === "round" ? h / 2 : 6;
      return (
        `M${f(x + r)},${f(y)}H${f(-x - r)}A${f(r)},${f(r)} 0 0 1 ${f(-x)},${f(y + r)}V${f(-y - r)}` +
        `A${f(r)},${f(r)} 0 0 1 ${f(-x - r)},${f(-y)}H${f(x + r)}A${f(r)},${f(r)} 0 0 1 ${f(x)},${f(-y - r)}` +
        `V${f(y + r)}A${f(r)},${f(r)} 0 0 1 ${f(x + r)},${f(y)}Z`
      );
    }
  }
}

/** Where the ray from a node's centre towards (dx, dy) leaves its shape. */
export function boundary(n: GNode, dx: number, dy: number): Point {
  const { w, h } = measure(n.label, n.shape);
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len;
  const uy = dy / len;
  const a = w / 2;
  const b = h / 2;
  let t: number;
  if (n.shape === "ellipse") t = 1 / Math.sqrt((ux * ux) / (a * a) + (uy * uy) / (b * b));
  else if (n.shape === "diamond") t = 1 / (Math.abs(ux) / a + Math.abs(uy) / b);
  else t = Math.min(ux ? a / Math.abs(ux) : Infinity, uy ? b / Math.abs(uy) : Infinity);
  return { x: n.x + ux * t, y: n.y + uy * t };
}

/**
 * The visible segment of an edge: from the source's outline to the
 * target's. When a link also goes the other way, both move apart (each to
 * its own right) so neither hides the other.
 */
export function edgeLine(a: GNode, b: GNode, twoWay = false): { x1: number; y1: number; x2: number; y2: number } {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const p = boundary(a, dx, dy);
  const q = boundary(b, -dx, -dy);
  if (!twoWay) return { x1: p.x, y1: p.y, x2: q.x, y2: q.y };
  const len = Math.hypot(dx, dy) || 1;
  const ox = (-dy / len) * 7;
  const oy = (dx / len) * 7;
  return { x1: p.x + ox, y1: p.y + oy, x2: q.x + ox, y2: q.y + oy };
}

// ---- the graph ---------------------------------------------------------

export class Graph {
  nodes = new Map<string, GNode>();
  edges = new Map<string, GEdge>();
  private nextNode = 1;
  private nextEdge = 1;

  newNodeId(): string {
    let id: string;
    do id = "n" + this.nextNode++;
    while (this.nodes.has(id));
    return id;
  }

  newEdgeId(): string {
    let id: string;
    do id = "e" + this.nextEdge++;
    while (this.edges.has(id));
    return id;
  }

  edgesOf(id: string): GEdge[] {
    const out: GEdge[] = [];
    for (const e of this.edges.values()) if (e.from === id || e.to === id) out.push(e);
    return out;
  }

  hasEdge(from: string, to: string): boolean {
    for (const e of this.edges.values()) if (e.from === from && e.to === to) return true;
    return false;
  }

  label(id: string): string {
    return this.nodes.get(id)?.label ?? id;
  }

  toWire(): { nodes: WireNode[]; edges: GEdge[] } {
    return {
      nodes: [...this.nodes.values()].map(wireNode),
      edges: [...this.edges.values()].map((e) => ({ ...e })),
    };
  }

  /** Replaces everything with checked wire data; returns what was dropped. */
  load(data: { nodes?: unknown; edges?: unknown }): { nodes: number; edges: number; dropped: number; placed: boolean } {
    this.nodes.clear();
    this.edges.clear();
    this.nextNode = 1;
    this.nextEdge = 1;
    let dropped = 0;
    let unplaced = 0;
    const list = Array.isArray(data.nodes) ? data.nodes.slice(0, MAX_NODES) : [];
    for (const raw of list) {
      const r = (raw ?? {}) as Record<string, unknown>;
      if (!validId(r.id) || this.nodes.has(r.id)) {
        dropped++;
        continue;
      }
      const at = cleanPoint(r.at) ?? cleanPoint(r);
      if (!at) unplaced++;
      this.nodes.set(r.id, {
        id: r.id,
        label: cleanLabel(r.label),
        x: at?.x ?? 0,
        y: at?.y ?? 0,
        shape: cleanShape(r.shape),
        color: cleanColor(r.color),
      });
    }
    const elist = Array.isArray(data.edges) ? data.edges.slice(0, MAX_EDGES) : [];
    for (const raw of elist) {
      const r = (raw ?? {}) as Record<string, unknown>;
      if (!validId(r.from) || !validId(r.to) || !this.nodes.has(r.from) || !this.nodes.has(r.to)) {
        dropped++;
        continue;
      }
      const id = validId(r.id) && !this.edges.has(r.id) ? r.id : this.newEdgeId();
      const label = cleanLabel(r.label);
      this.edges.set(id, { id, from: r.from, to: r.to, ...(label ? { label } : {}) });
    }
    return { nodes: this.nodes.size, edges: this.edges.size, dropped, placed: unplaced === 0 };
  }

  bounds(ids?: Iterable<string>): { x: number; y: number; w: number; h: number } | null {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const pick = ids ? [...ids].map((id) => this.nodes.get(id)).filter((n): n is GNode => !!n) : [...this.nodes.values()];
    for (const n of pick) {
      const { w, h } = measure(n.label, n.shape);
      x0 = Math.min(x0, n.x - w / 2);
      y0 = Math.min(y0, n.y - h / 2);
      x1 = Math.max(x1, n.x + w / 2);
      y1 = Math.max(y1, n.y + h / 2);
    }
    return pick.length ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
  }
}

export function wireNode(n: GNode): WireNode {
  const out: WireNode = { id: n.id, label: n.label, at: { x: Math.round(n.x), y: Math.round(n.y) }, shape: n.shape };
  if (n.color) out.color = n.color;
  return out;
}

// ---- layered layout ----------------------------------------------------

/**
 * Arranges the graph in layers (a Sugiyama-style layout for flows): cycles
 * are broken by reversing back edges, each node sits one layer below its
 * deepest predecessor, layers are ordered by barycentre sweeps to cut
 * crossings, then spaced by the nodes' sizes. Returns the new centres.
 */
export function layered(g: Graph, direction: Direction): Map<string, Point> {
  const ids = [...g.nodes.keys()];
  const index = new Map(ids.map((id, i) => [id, i]));
  const out: number[][] = ids.map(() => []);
  for (const e of g.edges.values()) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    out[a].push(b);
  }
  // 1. Break cycles: depth-first, an edge to a node on the stack is reversed.
  const state = new Uint8Array(ids.length); // 0 new, 1 on stack, 2 done
  const succ: number[][] = ids.map(() => []);
  const pred: number[][] = ids.map(() => []);
  const addEdge = (a: number, b: number) => {
    if (!succ[a].includes(b)) {
      succ[a].push(b);
      pred[b].push(a);
    }
  };
  // Roots first (no incoming edges), in the graph's order, so flows read
  // from where the human started them.
  const indeg = new Array<number>(ids.length).fill(0);
  for (const list of out) for (const b of list) indeg[b]++;
  const order = [...ids.keys()].sort((a, b) => (indeg[a] === 0 ? 0 : 1) - (indeg[b] === 0 ? 0 : 1) || a - b);
  for (const root of order) {
    if (state[root]) continue;
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1]++;
        const w = out[v][i];
        if (state[w] === 1) addEdge(w, v);
        else {
          addEdge(v, w);
          if (state[w] === 0) {
            state[w] = 1;
            stack.push([w, 0]);
          }
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  // 2. Layers: longest path from the sources (Kahn's order).
  const layer = new Array<number>(ids.length).fill(0);
  const left = pred.map((p) => p.length);
  const queue: number[] = [];
  for (let v = 0; v < ids.length; v++) if (left[v] === 0) queue.push(v);
  for (let qi = 0; qi < queue.length; qi++) {
    const v = queue[qi];
    for (const w of succ[v]) {
      layer[w] = Math.max(layer[w], layer[v] + 1);
      if (--left[w] === 0) queue.push(w);
    }
  }
  // Sources are pulled down to just above their nearest successor, so a
  // side input does not float at the top of a long flow.
  for (let v = 0; v < ids.length; v++) {
    if (pred[v].length === 0 && succ[v].length > 0) {
      layer[v] = Math.min(...succ[v].map((w) => layer[w])) - 1;
    }
  }
  const depth = Math.max(0, ...layer);
  const layers: number[][] = Array.from({ length: depth + 1 }, () => []);
  for (let v = 0; v < ids.length; v++) layers[Math.max(0, layer[v])].push(v);
  // 3. Order within layers: barycentre sweeps down and up.
  const pos = new Float64Array(ids.length);
  const setPos = (l: number[]) => l.forEach((v, i) => (pos[v] = i - (l.length - 1) / 2));
  layers.forEach(setPos);
  const sweep = (l: number[], from: number[][]) => {
    const bary = new Map<number, number>();
    for (const v of l) {
      const ns = from[v];
      bary.set(v, ns.length ? ns.reduce((s, w) => s + pos[w], 0) / ns.length : pos[v]);
    }
    l.sort((a, b) => (bary.get(a) as number) - (bary.get(b) as number) || pos[a] - pos[b]);
    setPos(l);
  };
  for (let round = 0; round < 4; round++) {
    for (let i = 1; i < layers.length; i++) sweep(layers[i], pred);
    for (let i = layers.length - 2; i >= 0; i--) sweep(layers[i], succ);
  }
  // 4. Coordinates: layers along the flow, nodes across it.
  const vertical = direction === "down" || direction === "up";
  const GAP_ACROSS = vertical ? 36 : 22;
  const GAP_ALONG = vertical ? 64 : 84;
  const result = new Map<string, Point>();
  let along = 0;
  for (const l of layers) {
    const sizes = l.map((v) => {
      const n = g.nodes.get(ids[v]) as GNode;
      return measure(n.label, n.shape);
    });
    const thick = Math.max(0, ...sizes.map((s) => (vertical ? s.h : s.w)));
    const span = sizes.reduce((s, z) => s + (vertical ? z.w : z.h), 0) + GAP_ACROSS * Math.max(0, l.length - 1);
    let across = -span / 2;
    l.forEach((v, i) => {
      const s = sizes[i];
      const wAcross = vertical ? s.w : s.h;
      const c = across + wAcross / 2;
      const a = along + thick / 2;
      result.set(ids[v], vertical ? { x: c, y: a } : { x: a, y: c });
      across += wAcross + GAP_ACROSS;
    });
    along += thick + GAP_ALONG;
  }
  if (direction === "up" || direction === "left") {
    for (const p of result.values()) {
      if (direction === "up") p.y = -p.y;
      else p.x = -p.x;
    }
  }
  return result;
}

// ---- what Claude reads -------------------------------------------------

function quote(s: string): string {
  return s ? `"${s}"` : "(no label)";
}

/** One line under 140 characters, for lists of saved sessions. */
export function summaryLine(g: Graph): string {
  const n = g.nodes.size;
  const m = g.edges.size;
  if (n === 0) return "An empty graph";
  const head = `${n} node${n === 1 ? "" : "s"}, ${m} link${m === 1 ? "" : "s"}: `;
  let names = "";
  for (const node of g.nodes.values()) {
    const next = (names ? ", " : "") + (node.label || node.id);
    if (head.length + names.length + next.length > 138) {
      names += "…";
      break;
    }
    names += next;
  }
  return head + names;
}

/** A plain-text rendering of the graph: nodes, links, starts and ends. */
export function textSummary(g: Graph, selection: string[], max = 12000): string {
  const n = g.nodes.size;
  const m = g.edges.size;
  const lines: string[] = [`A graph with ${n} node${n === 1 ? "" : "s"} and ${m} link${m === 1 ? "" : "s"}.`];
  if (n === 0) return lines[0];
  const hasIn = new Set<string>();
  const hasOut = new Set<string>();
  for (const e of g.edges.values()) {
    hasOut.add(e.from);
    hasIn.add(e.to);
  }
  const starts = [...g.nodes.values()].filter((x) => !hasIn.has(x.id) && hasOut.has(x.id));
  const ends = [...g.nodes.values()].filter((x) => hasIn.has(x.id) && !hasOut.has(x.id));
  const alone = [...g.nodes.values()].filter((x) => !hasIn.has(x.id) && !hasOut.has(x.id));
  if (starts.length) lines.push("Starts: " + starts.map((x) => quote(x.label)).join(", ") + ".");
  if (ends.length) lines.push("Ends: " + ends.map((x) => quote(x.label)).join(", ") + ".");
  if (alone.length) lines.push("Not connected: " + alone.map((x) => quote(x.label)).join(", ") + ".");
  if (selection.length) lines.push("Selected: " + selection.map((id) => quote(g.label(id))).join(", ") + ".");
  lines.push("", "Nodes:");
  for (const x of g.nodes.values()) {
    const extra = [x.shape !== "box" ? x.shape : "", x.color ?? ""].filter(Boolean).join(", ");
    lines.push(`- ${x.id}: ${quote(x.label)}${extra ? ` (${extra})` : ""}`);
  }
  if (m) {
    lines.push("", "Links:");
    for (const e of g.edges.values()) {
      lines.push(`- ${quote(g.label(e.from))} → ${quote(g.label(e.to))}${e.label ? ` [${e.label}]` : ""}`);
    }
  }
  let text = lines.join("\n");
  if (text.length > max) text = text.slice(0, max - 40) + "\n… (cut; the full graph is in nodes/edges)";
  return text;
}

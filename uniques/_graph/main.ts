// Graph: draw flows and ideas with Claude. This page speaks only LIP through
// window.lip (Lets injects it before this script); everything else is the
// drawing board: SVG nodes and links, pan and zoom, undo, layout, export.

import {
  Direction,
  GEdge,
  GNode,
  Graph,
  MAX_EDGES,
  MAX_NODES,
  Point,
  Shape,
  Viewport,
  cleanColor,
  cleanLabel,
  cleanPoint,
  cleanShape,
  edgeLine,
  layered,
  measure,
  shapePath,
  summaryLine,
  textSummary,
  validId,
  wireNode,
} from "./model";
import { NodeDrag, PanDrag, followMove, followPan } from "./drag";

type Data = Record<string, unknown>;

interface Lip {
  emit(type: string, data?: Data): void;
  on(type: string, handler: (data: Data) => void): unknown;
  export(data?: Data): void;
  snapshot(data?: Data): void;
  ready(): void;
  context(fn: (target: Element | null, ev: MouseEvent) => unknown): void;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const MIN_ZOOM = 0.1;
const MAX_ZOOM = 4;
const HISTORY = 100;

const $ = <T extends Element = HTMLElement>(id: string) => document.getElementById(id) as unknown as T;

const svg = $<SVGSVGElement>("canvas");
const wrap = $("board-wrap");
const viewG = $<SVGGElement>("viewport");
const edgeLayer = $<SVGGElement>("edges");
const nodeLayer = $<SVGGElement>("nodes");
const preview = $<SVGLineElement>("preview");
const box = $<SVGRectElement>("box");
const editor = $<HTMLInputElement>("editor");
const statusEl = $("status");
const emptyHint = $("empty");
const counts = $("counts");
const directionSel = $<HTMLSelectElement>("direction");
const shapeSel = $<HTMLSelectElement>("shape");
const colorSel = $<HTMLSelectElement>("color");

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

// Outside Lets there is no window.lip: the board still works, and says why
// nothing reaches Claude.
const hasLip = !!(window as unknown as { lip?: Lip }).lip;
const lip: Lip = (window as unknown as { lip?: Lip }).lip ?? {
  emit() {},
  on() {},
  export() {},
  snapshot() {},
  ready() {},
  context() {},
};

const graph = new Graph();
let selected = new Set<string>(); // node ids
let selectedEdges = new Set<string>();
let view: Viewport = { x: -400, y: -240, zoom: 1 };
const nodeEls = new Map<string, SVGGElement>();
const edgeEls = new Map<string, SVGGElement>();

// ---- status ------------------------------------------------------------

let statusTimer = 0;
function say(text: string, warn = false): void {
  statusEl.textContent = text;
  statusEl.classList.toggle("warn", warn);
  clearTimeout(statusTimer);
  if (text) statusTimer = window.setTimeout(() => (statusEl.textContent = ""), 6000);
}

// ---- history (undo/redo) -----------------------------------------------

interface Saved {
  nodes: ReturnType<Graph["toWire"]>["nodes"];
  edges: GEdge[];
}
const undoStack: Saved[] = [];
const redoStack: Saved[] = [];
let groupKey = "";
let groupAt = 0;

function state(): Saved {
  return graph.toWire();
}

/**
 * Records the graph before a change. Changes with the same group key within
 * 400 ms (a batch of Claude's commands, a key held down) undo together.
 */
function remember(group = ""): void {
  const now = performance.now();
  if (group && group === groupKey && now - groupAt < 400) {
    groupAt = now;
    return;
  }
  groupKey = group;
  groupAt = now;
  undoStack.push(state());
  if (undoStack.length > HISTORY) undoStack.shift();
  redoStack.length = 0;
  updateButtons();
}

function restore(s: Saved): void {
  graph.load(s);
  selected = new Set([...selected].filter((id) => graph.nodes.has(id)));
  selectedEdges = new Set([...selectedEdges].filter((id) => graph.edges.has(id)));
  renderAll();
}

function undo(): void {
  const s = undoStack.pop();
  if (!s) return say("Nothing to undo.");
  redoStack.push(state());
  groupKey = "";
  restore(s);
  humanChanged();
  say("Undone.");
}

function redo(): void {
  const s = redoStack.pop();
  if (!s) return say("Nothing to redo.");
  undoStack.push(state());
  groupKey = "";
  restore(s);
  humanChanged();
  say("Redone.");
}

// ---- LIP out -----------------------------------------------------------

// An envelope may carry at most 256 KiB. Huge graphs go up trimmed: first
// without link labels and with labels cut to 40 characters, then without
// the last nodes, and say so in "truncated".
const MAX_WIRE = 200_000;

function wireWithin(limit: number): Data {
  const full = graph.toWire();
  if (JSON.stringify(full).length <= limit) return { ...full };
  let nodes = full.nodes.map((n) => ({ ...n, label: n.label.slice(0, 40) }));
  let edges = full.edges.map((e) => ({ id: e.id, from: e.from, to: e.to }));
  while (nodes.length && JSON.stringify({ nodes, edges }).length > limit) {
    nodes = nodes.slice(0, Math.floor(nodes.length * 0.85));
    const kept = new Set(nodes.map((n) => n.id));
    edges = edges.filter((e) => kept.has(e.from) && kept.has(e.to));
  }
  return { nodes, edges, truncated: { nodes: full.nodes.length, edges: full.edges.length } };
}

let changedTimer = 0;
let snapshotTimer = 0;

/** The human changed the graph: graph.changed soon, and a snapshot. */
function humanChanged(): void {
  clearTimeout(changedTimer);
  changedTimer = window.setTimeout(function emitChanged() {
    // A node still being named is not news yet: wait for its graph.node.add.
    if (editing?.fresh) changedTimer = window.setTimeout(emitChanged, 250);
    else lip.emit("graph.changed", wireWithin(MAX_WIRE));
  }, 250);
  scheduleSnapshot();
}

function scheduleSnapshot(delay = 500): void {
  clearTimeout(snapshotTimer);
  snapshotTimer = window.setTimeout(function save() {
    if (editing?.fresh) snapshotTimer = window.setTimeout(save, 250);
    else lip.snapshot({ summary: summaryLine(graph), ...wireWithin(MAX_WIRE), viewport: roundView() });
  }, delay);
}

function roundView(): Viewport {
  return { x: Math.round(view.x), y: Math.round(view.y), zoom: Math.round(view.zoom * 1000) / 1000 };
}

function emitSelection(): void {
  const ids = [...selected];
  lip.emit("graph.node.select", { ids, labels: ids.map((id) => graph.label(id)) });
}

function sendToClaude(): void {
  if (graph.nodes.size === 0) {
    say("Draw something first: double-click the board to add a node.", true);
    return;
  }
  const selection = [...selected];
  const text = textSummary(graph, selection);
  lip.export({
    summary: summaryLine(graph),
    text,
    ...wireWithin(MAX_WIRE - text.length * 2),
    selection,
    viewport: roundView(),
  });
  say("Sent to Claude — the answer comes in your conversation.");
}

// ---- drawing -----------------------------------------------------------

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string> = {}): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// Zooming redraws every label at a new size, which is slow on big graphs
// (10–15 fps for 500 nodes in software rendering). So while the zoom
// changes, the board's last drawing is scaled as a picture (a CSS
// transform the compositor applies without repainting), and the SVG is
// redrawn sharp once the zoom rests for a moment. Panning at a steady zoom
// moves the SVG itself.
let committed: Viewport = { ...view };
let commitTimer = 0;
let viewAnim = 0; // the view's glide (setView)
let layoutsRunning = 0; // animated layouts (runLayout)

function commitView(): void {
  clearTimeout(commitTimer);
  commitTimer = 0;
  committed = { ...view };
  viewG.setAttribute("transform", `scale(${view.zoom}) translate(${-view.x} ${-view.y})`);
  svg.style.removeProperty("transform");
  svg.dataset.zoom = view.zoom.toFixed(3);
  markAnimating();
}

function applyView(): void {
  if (view.zoom === committed.zoom) return commitView();
  const k = view.zoom / committed.zoom;
  if (k < 0.5 || k > 2.5) return commitView();
  const tx = (committed.x - view.x) * view.zoom;
  const ty = (committed.y - view.y) * view.zoom;
  svg.style.transform = `translate(${tx}px, ${ty}px) scale(${k})`;
  clearTimeout(commitTimer);
  commitTimer = window.setTimeout(commitView, 140);
  markAnimating();
}

function drawNode(n: GNode, degree?: Map<string, number>): SVGGElement {
  let g = nodeEls.get(n.id);
  if (!g) {
    g = el("g", { class: "node", tabindex: "0", role: "button" });
    g.dataset.id = n.id;
    g.append(el("path", { class: "shape" }), el("text", { class: "label" }), el("circle", { class: "handle", r: "7" }));
    const handle = g.lastElementChild as SVGCircleElement;
    handle.setAttribute("aria-hidden", "true");
    const title = el("title");
    handle.append(title);
    title.textContent = "Drag to connect";
    nodeLayer.append(g);
    nodeEls.set(n.id, g);
  }
  const { w, h, lines } = measure(n.label, n.shape);
  const key = `${n.shape}|${n.label}|${n.color ?? ""}`;
  if (g.dataset.key !== key) {
    g.dataset.key = key;
    g.dataset.shape = n.shape;
    if (n.color && n.color.startsWith("#")) {
      g.removeAttribute("data-color");
      g.style.setProperty("--node-fill", n.color + "29");
      g.style.setProperty("--node-line", n.color);
    } else {
      g.style.removeProperty("--node-fill");
      g.style.removeProperty("--node-line");
      if (n.color) g.dataset.color = n.color;
      else g.removeAttribute("data-color");
    }
    (g.children[0] as SVGPathElement).setAttribute("d", shapePath(n.shape, w, h));
    const text = g.children[1] as SVGTextElement;
    text.replaceChildren(
      ...lines.map((line, i) => {
        const t = el("tspan", { x: "0", y: String((i - (lines.length - 1) / 2) * 18) });
        t.textContent = line;
        return t;
      }),
    );
    const handle = g.children[2] as SVGCircleElement;
    handle.setAttribute("cx", String(Math.round(w / 2)));
    handle.setAttribute("cy", "0");
  }
  g.setAttribute("transform", `translate(${Math.round(n.x * 10) / 10} ${Math.round(n.y * 10) / 10})`);
  g.classList.toggle("selected", selected.has(n.id));
  g.setAttribute("aria-pressed", String(selected.has(n.id)));
  const links = degree ? (degree.get(n.id) ?? 0) : graph.edgesOf(n.id).length;
  g.setAttribute("aria-label", `${n.label || "Untitled"} — node, ${links} link${links === 1 ? "" : "s"}`);
  return g;
}

function drawEdge(e: GEdge): void {
  const a = graph.nodes.get(e.from);
  const b = graph.nodes.get(e.to);
  if (!a || !b) return;
  let g = edgeEls.get(e.id);
  if (!g) {
    g = el("g", { class: "edge" });
    g.dataset.id = e.id;
    g.append(el("line", { class: "hit" }), el("line", { class: "line", "marker-end": "url(#arrow)" }), el("text", { class: "elabel" }));
    edgeLayer.append(g);
    edgeEls.set(e.id, g);
  }
  g.dataset.from = e.from;
  g.dataset.to = e.to;
  let x1: number, y1: number, x2: number, y2: number;
  if (a === b) {
    // A self-loop: a short hook above the node.
    const { h } = measure(a.label, a.shape);
    x1 = a.x - 10;
    y1 = a.y - h / 2;
    x2 = a.x + 10;
    y2 = a.y - h / 2 - 1;
  } else ({ x1, y1, x2, y2 } = edgeLine(a, b, graph.hasEdge(e.to, e.from)));
  const r = (v: number) => String(Math.round(v * 10) / 10);
  for (const line of [g.children[0], g.children[1]]) {
    line.setAttribute("x1", r(x1));
    line.setAttribute("y1", r(y1));
    line.setAttribute("x2", r(x2));
    line.setAttribute("y2", r(y2));
  }
  const text = g.children[2] as SVGTextElement;
  if ((text.textContent ?? "") !== (e.label ?? "")) text.textContent = e.label ?? "";
  text.setAttribute("x", r((x1 + x2) / 2));
  text.setAttribute("y", r((y1 + y2) / 2 - 6));
  g.classList.toggle("selected", selectedEdges.has(e.id));
}

function renderAll(): void {
  for (const [id, g] of nodeEls) {
    if (!graph.nodes.has(id)) {
      g.remove();
      nodeEls.delete(id);
    }
  }
  for (const [id, g] of edgeEls) {
    if (!graph.edges.has(id)) {
      g.remove();
      edgeEls.delete(id);
    }
  }
  const degree = new Map<string, number>();
  for (const e of graph.edges.values()) {
    degree.set(e.from, (degree.get(e.from) ?? 0) + 1);
    if (e.to !== e.from) degree.set(e.to, (degree.get(e.to) ?? 0) + 1);
  }
  for (const n of graph.nodes.values()) drawNode(n, degree);
  for (const e of graph.edges.values()) drawEdge(e);
  emptyHint.hidden = graph.nodes.size > 0;
  const n = graph.nodes.size;
  const m = graph.edges.size;
  counts.textContent = `${n} node${n === 1 ? "" : "s"} · ${m} link${m === 1 ? "" : "s"}`;
  svg.dataset.nodes = String(n);
  svg.dataset.edges = String(m);
  updateButtons();
}

/** Redraws only what moving these nodes changes. */
function renderMoved(ids: Iterable<string>): void {
  const touched = new Set<string>();
  for (const id of ids) {
    const n = graph.nodes.get(id);
    if (n) drawNode(n);
    touched.add(id);
  }
  for (const e of graph.edges.values()) if (touched.has(e.from) || touched.has(e.to)) drawEdge(e);
}

function renderSelection(): void {
  for (const [id, g] of nodeEls) {
    const on = selected.has(id);
    g.classList.toggle("selected", on);
    g.setAttribute("aria-pressed", String(on));
  }
  for (const [id, g] of edgeEls) g.classList.toggle("selected", selectedEdges.has(id));
  updateButtons();
}

function updateButtons(): void {
  ($("undo") as HTMLButtonElement).disabled = undoStack.length === 0;
  ($("redo") as HTMLButtonElement).disabled = redoStack.length === 0;
  ($("delete") as HTMLButtonElement).disabled = selected.size + selectedEdges.size === 0;
  ($("connect") as HTMLButtonElement).disabled = selected.size < 2;
  ($("send") as HTMLButtonElement).disabled = graph.nodes.size === 0;
}

function flash(ids: Iterable<string>, cls = "fresh"): void {
  if (reducedMotion.matches) return;
  for (const id of ids) {
    const g = nodeEls.get(id);
    if (!g) continue;
    g.classList.remove(cls);
    void g.getBoundingClientRect();
    g.classList.add(cls);
    window.setTimeout(() => g.classList.remove(cls), 1600);
  }
}

// ---- viewport ----------------------------------------------------------

function size(): { w: number; h: number } {
  const r = wrap.getBoundingClientRect();
  return { w: r.width || 800, h: r.height || 600 };
}

function toGraph(clientX: number, clientY: number): Point {
  const r = wrap.getBoundingClientRect();
  return { x: view.x + (clientX - r.left) / view.zoom, y: view.y + (clientY - r.top) / view.zoom };
}

function toScreen(p: Point): Point {
  const r = wrap.getBoundingClientRect();
  return { x: r.left + (p.x - view.x) * view.zoom, y: r.top + (p.y - view.y) * view.zoom };
}

function zoomAt(factor: number, clientX?: number, clientY?: number): void {
  const r = wrap.getBoundingClientRect();
  const cx = clientX ?? r.left + r.width / 2;
  const cy = clientY ?? r.top + r.height / 2;
  const before = toGraph(cx, cy);
  view.zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, view.zoom * factor));
  view.x = before.x - (cx - r.left) / view.zoom;
  view.y = before.y - (cy - r.top) / view.zoom;
  applyView();
  scheduleSnapshot(1500);
}

// Animations under way (a view gliding, layouts moving nodes, a zoom shown
// as a scaled picture until it is redrawn): while any runs the board
// carries data-animating, so whoever waits for the drawing to settle (a
// test, a screenshot) waits for that, not for a time.
function markAnimating(): void {
  svg.toggleAttribute("data-animating", viewAnim !== 0 || layoutsRunning > 0 || commitTimer !== 0);
}

function setView(target: Viewport, animate = true): void {
  cancelAnimationFrame(viewAnim);
  viewAnim = 0;
  if (!animate || reducedMotion.matches) {
    view = target;
    applyView();
    markAnimating();
    return;
  }
  const from = { ...view };
  const start = performance.now();
  const step = (now: number) => {
    const t = Math.min(1, (now - start) / 280);
    const k = t * (2 - t);
    view = {
      x: from.x + (target.x - from.x) * k,
      y: from.y + (target.y - from.y) * k,
      zoom: from.zoom + (target.zoom - from.zoom) * k,
    };
    applyView();
    viewAnim = t < 1 ? requestAnimationFrame(step) : 0;
    markAnimating();
  };
  viewAnim = requestAnimationFrame(step);
  markAnimating();
}

/** Frames these nodes (all when none), never zooming in past 1.5×. */
function fit(ids?: Iterable<string>, animate = true): void {
  const b = graph.bounds(ids);
  const { w, h } = size();
  if (!b) {
    setView({ x: -w / 2, y: -h / 2, zoom: 1 }, animate);
    return;
  }
  const pad = 60;
  const zoom = Math.min(1.5, Math.max(MIN_ZOOM, Math.min((w - pad * 2) / Math.max(b.w, 1), (h - pad * 2) / Math.max(b.h, 1))));
  setView({ x: b.x + b.w / 2 - w / 2 / zoom, y: b.y + b.h / 2 - h / 2 / zoom, zoom }, animate);
}

// ---- changes (shared by the human and Claude) ---------------------------

function placeNear(anchor?: GNode): Point {
  if (anchor) {
    const { h } = measure(anchor.label, anchor.shape);
    const siblings = graph.edgesOf(anchor.id).filter((e) => e.from === anchor.id).length;
    return { x: anchor.x + siblings * 40 - 20 * Math.min(siblings, 1), y: anchor.y + h + 60 + siblings * 8 };
  }
  const { w, h } = size();
  const c = { x: view.x + w / 2 / view.zoom, y: view.y + h / 2 / view.zoom };
  // Step aside from whatever sits at the centre already.
  for (let i = 0; i < 40; i++) {
    const p = { x: c.x + (i % 5) * 30, y: c.y + Math.floor(i / 5) * 60 };
    let free = true;
    for (const n of graph.nodes.values()) if (Math.abs(n.x - p.x) < 60 && Math.abs(n.y - p.y) < 30) free = false;
    if (free) return p;
  }
  return c;
}

function addNode(opts: { id?: string; label: string; at?: Point; shape?: Shape; color?: string; near?: GNode }): GNode {
  const id = opts.id && !graph.nodes.has(opts.id) ? opts.id : graph.newNodeId();
  const at = opts.at ?? placeNear(opts.near);
  const n: GNode = { id, label: opts.label, x: at.x, y: at.y, shape: opts.shape ?? "box", ...(opts.color ? { color: opts.color } : {}) };
  graph.nodes.set(id, n);
  return n;
}

function addEdge(from: string, to: string, label?: string, id?: string): GEdge | null {
  if (!graph.nodes.has(from) || !graph.nodes.has(to) || graph.hasEdge(from, to)) return null;
  const e: GEdge = { id: id && validId(id) && !graph.edges.has(id) ? id : graph.newEdgeId(), from, to, ...(label ? { label } : {}) };
  graph.edges.set(e.id, e);
  return e;
}

function removeNodes(ids: string[]): { ids: string[]; labels: string[]; edges: string[] } {
  const gone = ids.filter((id) => graph.nodes.has(id));
  const edges: string[] = [];
  const labels = gone.map((id) => graph.label(id));
  for (const id of gone) {
    for (const e of graph.edgesOf(id)) {
      graph.edges.delete(e.id);
      edges.push(e.id);
    }
    graph.nodes.delete(id);
    selected.delete(id);
  }
  for (const e of edges) selectedEdges.delete(e);
  return { ids: gone, labels, edges };
}

function runLayout(direction: Direction, animate = true): void {
  const before = graph.bounds();
  const target = layered(graph, direction);
  // Keep the drawing where it was: the new top-left at the old one.
  let minX = Infinity;
  let minY = Infinity;
  for (const [id, p] of target) {
    const n = graph.nodes.get(id) as GNode;
    const { w, h } = measure(n.label, n.shape);
    minX = Math.min(minX, p.x - w / 2);
    minY = Math.min(minY, p.y - h / 2);
  }
  const dx = before ? before.x - minX : 0;
  const dy = before ? before.y - minY : 0;
  for (const p of target.values()) {
    p.x += dx;
    p.y += dy;
  }
  directionSel.value = direction;
  svg.dataset.layout = direction; // the last layout's direction (with data-animating: it is done)
  const finish = () => {
    for (const [id, p] of target) {
      const n = graph.nodes.get(id);
      if (n) {
        n.x = p.x;
        n.y = p.y;
      }
    }
    renderAll();
    fit(undefined, animate);
  };
  if (!animate || reducedMotion.matches || graph.nodes.size > 300) return finish();
  layoutsRunning++;
  markAnimating();
  const from = new Map([...graph.nodes.values()].map((n) => [n.id, { x: n.x, y: n.y }]));
  const start = performance.now();
  const step = (now: number) => {
    const t = Math.min(1, (now - start) / 320);
    const k = t * (2 - t);
    for (const [id, p] of target) {
      const n = graph.nodes.get(id);
      const f = from.get(id);
      if (n && f) {
        n.x = f.x + (p.x - f.x) * k;
        n.y = f.y + (p.y - f.y) * k;
      }
    }
    renderMoved(target.keys());
    if (t < 1) requestAnimationFrame(step);
    else {
      finish();
      layoutsRunning--;
      markAnimating();
    }
  };
  requestAnimationFrame(step);
}

// ---- human acts ----------------------------------------------------------

function setSelection(ids: Iterable<string>, edges: Iterable<string> = [], emit = true): void {
  const next = new Set([...ids].filter((id) => graph.nodes.has(id)));
  const same = next.size === selected.size && [...next].every((id) => selected.has(id));
  selected = next;
  selectedEdges = new Set(edges);
  renderSelection();
  if (emit && !same) emitSelection();
}

function humanAddNode(at?: Point, from?: string): GNode {
  remember();
  const near = from ? graph.nodes.get(from) : undefined;
  const n = addNode({ label: "", at, near, shape: cleanShape(shapeSel.value), color: cleanColor(colorSel.value) });
  renderAll();
  setSelection([n.id], [], false);
  startEdit(n.id, "node", true, from);
  return n;
}

function humanConnect(from: string, to: string): void {
  if (from === to) return;
  if (graph.hasEdge(from, to)) return say("These two are connected already.");
  remember();
  const e = addEdge(from, to);
  if (!e) return;
  renderAll();
  lip.emit("graph.edge.add", { id: e.id, from, to, fromLabel: graph.label(from), toLabel: graph.label(to) });
  humanChanged();
  say(`Connected “${graph.label(from) || from}” to “${graph.label(to) || to}”.`);
}

function humanDelete(): void {
  if (selected.size + selectedEdges.size === 0) return;
  remember();
  const edgeIds = [...selectedEdges].filter((id) => graph.edges.has(id));
  for (const id of edgeIds) graph.edges.delete(id);
  const gone = removeNodes([...selected]);
  selectedEdges.clear();
  renderAll();
  if (gone.ids.length) lip.emit("graph.node.remove", gone);
  if (edgeIds.length) lip.emit("graph.edge.remove", { ids: edgeIds });
  if (gone.ids.length) emitSelection();
  humanChanged();
  const what = gone.ids.length ? `${gone.ids.length} node${gone.ids.length === 1 ? "" : "s"}` : `${edgeIds.length} link${edgeIds.length === 1 ? "" : "s"}`;
  say(`Deleted ${what}. Ctrl+Z brings it back.`);
}

// Inline label editing: an input laid over the node or link.
let editing: { id: string; kind: "node" | "edge"; fresh: boolean; from?: string; before: string; depth: number } | null = null;

function startEdit(id: string, kind: "node" | "edge", fresh = false, from?: string): void {
  let center: Point;
  let before: string;
  let width: number;
  if (kind === "node") {
    const n = graph.nodes.get(id);
    if (!n) return;
    center = { x: n.x, y: n.y };
    before = n.label;
    width = Math.max(140, measure(n.label, n.shape).w);
  } else {
    const e = graph.edges.get(id);
    const a = e && graph.nodes.get(e.from);
    const b = e && graph.nodes.get(e.to);
    if (!e || !a || !b) return;
    center = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    before = e.label ?? "";
    width = 160;
  }
  editing = { id, kind, fresh, from, before, depth: undoStack.length };
  const p = toScreen(center);
  const wr = wrap.getBoundingClientRect();
  editor.style.left = `${Math.round(p.x - wr.left - width / 2)}px`;
  editor.style.top = `${Math.round(p.y - wr.top - 16)}px`;
  editor.style.width = `${Math.round(width)}px`;
  editor.value = before;
  editor.setAttribute("aria-label", kind === "node" ? "Node label" : "Link label");
  editor.placeholder = kind === "node" ? "Name this node" : "Label this link";
  editor.hidden = false;
  editor.focus();
  editor.select();
}

function finishEdit(commit: boolean): void {
  if (!editing) return;
  const { id, kind, fresh, from, before, depth } = editing;
  editing = null;
  editor.hidden = true;
  const label = cleanLabel(editor.value);
  if (kind === "node") {
    const n = graph.nodes.get(id);
    if (!n) return;
    if (fresh && !commit) {
      // Escape on a node still being named: it was never there.
      graph.nodes.delete(id);
      selected.delete(id);
      // Drop the undo step that made it, unless Claude changed things since.
      if (undoStack.length === depth) undoStack.pop();
      renderAll();
      updateButtons();
      svg.focus({ preventScroll: true });
      say("No node added.");
      return;
    }
    if (fresh) {
      // A new node is announced once it has its name.
      n.label = commit ? label : "";
      drawNode(n);
      let edge: GEdge | null = null;
      if (from) edge = addEdge(from, id);
      renderAll();
      lip.emit("graph.node.add", { ...wireNode(n), ...(from ? { from } : {}) });
      if (edge) lip.emit("graph.edge.add", { id: edge.id, from: edge.from, to: edge.to, fromLabel: graph.label(edge.from), toLabel: n.label });
      emitSelection();
      humanChanged();
      say(n.label ? `Added “${n.label}”.` : "Added a node.");
    } else if (commit && label !== before) {
      remember();
      n.label = label;
      renderAll();
      lip.emit("graph.label.change", { id, kind, label, before });
      humanChanged();
    }
    (nodeEls.get(id) as SVGGElement | undefined)?.focus({ preventScroll: true });
  } else {
    const e = graph.edges.get(id);
    if (!e || !commit || label === before) return;
    remember();
    if (label) e.label = label;
    else delete e.label;
    renderAll();
    lip.emit("graph.label.change", { id, kind, label, before });
    humanChanged();
  }
}

editor.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter") {
    ev.preventDefault();
    finishEdit(true);
  } else if (ev.key === "Escape") {
    ev.preventDefault();
    finishEdit(false);
  }
  ev.stopPropagation();
});
editor.addEventListener("blur", () => finishEdit(true));

// Pointer gestures on the board.
type Drag =
  | ({ kind: "move"; pointer: number } & NodeDrag)
  | ({ kind: "pan"; pointer: number } & PanDrag)
  | { kind: "box"; start: Point; pointer: number; base: Set<string> }
  | { kind: "connect"; from: string; pointer: number };
let drag: Drag | null = null;

function targetOf(ev: Event): { node?: string; edge?: string; handle?: boolean } {
  const t = ev.target as Element | null;
  const node = t?.closest?.(".node") as SVGGElement | null;
  if (node) return { node: node.dataset.id, handle: !!t?.closest?.(".handle") };
  const edge = t?.closest?.(".edge") as SVGGElement | null;
  if (edge) return { edge: edge.dataset.id };
  return {};
}

svg.addEventListener("pointerdown", (ev) => {
  if (ev.button !== 0 || editing) return;
  const hit = targetOf(ev);
  svg.setPointerCapture(ev.pointerId);
  if (hit.node && hit.handle) {
    drag = { kind: "connect", from: hit.node, pointer: ev.pointerId };
    const n = graph.nodes.get(hit.node) as GNode;
    preview.setAttribute("x1", String(n.x));
    preview.setAttribute("y1", String(n.y));
    const p = toGraph(ev.clientX, ev.clientY);
    preview.setAttribute("x2", String(p.x));
    preview.setAttribute("y2", String(p.y));
    preview.classList.add("on");
    return;
  }
  if (hit.node) {
    const id = hit.node;
    if (ev.shiftKey || ev.ctrlKey || ev.metaKey) {
      const next = new Set(selected);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      setSelection(next, []);
    } else if (!selected.has(id)) setSelection([id], []);
    const origin = new Map([...selected].map((sid) => [sid, { x: graph.nodes.get(sid)!.x, y: graph.nodes.get(sid)!.y }]));
    drag = { kind: "move", start: toGraph(ev.clientX, ev.clientY), origin, moved: false, pointer: ev.pointerId };
    return;
  }
  if (hit.edge) {
    setSelection([], [hit.edge]);
    return;
  }
  if (ev.shiftKey) {
    const start = toGraph(ev.clientX, ev.clientY);
    drag = { kind: "box", start, pointer: ev.pointerId, base: new Set(selected) };
    return;
  }
  drag = { kind: "pan", startX: ev.clientX, startY: ev.clientY, view: { ...view }, moved: false, pointer: ev.pointerId };
  svg.classList.add("panning");
});

/**
 * Brings the drag to the pointer's point in ev: a pointermove, and the
 * pointerup too, so the gesture ends where the pointer was released even
 * when the browser merged or dropped the moves before it.
 */
function follow(ev: PointerEvent): void {
  if (!drag || ev.pointerId !== drag.pointer) return;
  const p = toGraph(ev.clientX, ev.clientY);
  switch (drag.kind) {
    case "move": {
      const wasMoved = drag.moved;
      const at = followMove(drag, p, view.zoom);
      if (!at) return;
      if (!wasMoved) remember();
      for (const [id, q] of at) {
        const n = graph.nodes.get(id);
        if (n) {
          n.x = q.x;
          n.y = q.y;
        }
      }
      renderMoved(drag.origin.keys());
      break;
    }
    case "pan": {
      view = followPan(drag, ev.clientX, ev.clientY);
      applyView();
      break;
    }
    case "box": {
      const x = Math.min(drag.start.x, p.x);
      const y = Math.min(drag.start.y, p.y);
      const w = Math.abs(p.x - drag.start.x);
      const h = Math.abs(p.y - drag.start.y);
      box.setAttribute("x", String(x));
      box.setAttribute("y", String(y));
      box.setAttribute("width", String(w));
      box.setAttribute("height", String(h));
      box.classList.add("on");
      const inside = new Set(drag.base);
      for (const n of graph.nodes.values()) if (n.x >= x && n.x <= x + w && n.y >= y && n.y <= y + h) inside.add(n.id);
      selected = inside;
      renderSelection();
      break;
    }
    case "connect":
      preview.setAttribute("x2", String(p.x));
      preview.setAttribute("y2", String(p.y));
      break;
  }
}
svg.addEventListener("pointermove", follow);

function endDrag(ev: PointerEvent): void {
  if (!drag || ev.pointerId !== drag.pointer) return;
  // A cancelled gesture stays where the last move left it; a release lands
  // where the pointer let go.
  if (ev.type === "pointerup") follow(ev);
  const d = drag;
  drag = null;
  svg.classList.remove("panning");
  switch (d.kind) {
    case "move":
      if (d.moved) humanChanged();
      break;
    case "pan":
      if (!d.moved) setSelection([], []);
      else scheduleSnapshot(1500);
      break;
    case "box":
      box.classList.remove("on");
      {
        const now = selected;
        selected = d.base;
        setSelection(now, []);
      }
      break;
    case "connect": {
      preview.classList.remove("on");
      const under = document.elementFromPoint(ev.clientX, ev.clientY);
      const node = under?.closest?.(".node") as SVGGElement | null;
      if (node && node.dataset.id && node.dataset.id !== d.from) humanConnect(d.from, node.dataset.id);
      else if (!node && ev.type === "pointerup") humanAddNode(toGraph(ev.clientX, ev.clientY), d.from);
      break;
    }
  }
}
svg.addEventListener("pointerup", endDrag);
svg.addEventListener("pointercancel", endDrag);

svg.addEventListener("dblclick", (ev) => {
  // The pointer capture of the first click makes the board the target of
  // the double-click; ask what is under the pointer instead.
  const under = document.elementFromPoint(ev.clientX, ev.clientY);
  const hit = targetOf({ target: under } as unknown as Event);
  if (hit.node) startEdit(hit.node, "node");
  else if (hit.edge) startEdit(hit.edge, "edge");
  else humanAddNode(toGraph(ev.clientX, ev.clientY));
});

svg.addEventListener(
  "wheel",
  (ev) => {
    ev.preventDefault();
    if (ev.ctrlKey || ev.metaKey || Math.abs(ev.deltaY) >= Math.abs(ev.deltaX)) {
      zoomAt(Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 0.0015)), ev.clientX, ev.clientY);
    } else {
      view.x += ev.deltaX / view.zoom;
      applyView();
    }
  },
  { passive: false },
);

// Right-click selects the node under the pointer; the SDK then calls the
// companion with the context below.
svg.addEventListener("contextmenu", (ev) => {
  const hit = targetOf(ev);
  if (hit.node && !selected.has(hit.node)) setSelection([hit.node], []);
});

// (On the board, not the node layer: Chromium makes an SVG group with a
// focus listener a Tab stop of its own.)
svg.addEventListener("focusin", (ev) => {
  const g = (ev.target as Element).closest(".node") as SVGGElement | null;
  if (g?.dataset.id && !drag && !selected.has(g.dataset.id) && !editing) setSelection([g.dataset.id], []);
});

function contextFor(target: Element | null, ev: MouseEvent): unknown {
  const node = target?.closest?.(".node") as SVGGElement | null;
  if (node?.dataset.id && graph.nodes.has(node.dataset.id)) {
    const n = graph.nodes.get(node.dataset.id) as GNode;
    const edges = graph.edgesOf(n.id);
    return {
      node: {
        ...wireNode(n),
        in: edges.filter((e) => e.to === n.id).slice(0, 20).map((e) => graph.label(e.from)),
        out: edges.filter((e) => e.from === n.id).slice(0, 20).map((e) => graph.label(e.to)),
      },
    };
  }
  const edge = target?.closest?.(".edge") as SVGGElement | null;
  if (edge?.dataset.id && graph.edges.has(edge.dataset.id)) {
    const e = graph.edges.get(edge.dataset.id) as GEdge;
    return { edge: { ...e, fromLabel: graph.label(e.from), toLabel: graph.label(e.to) } };
  }
  const p = toGraph(ev.clientX, ev.clientY);
  return { area: "board", at: { x: Math.round(p.x), y: Math.round(p.y) }, selection: [...selected] };
}
lip.context(contextFor);

// Keyboard: every gesture has a key.
function nudge(dx: number, dy: number): void {
  if (selected.size === 0) return;
  remember("nudge");
  for (const id of selected) {
    const n = graph.nodes.get(id);
    if (n) {
      n.x += dx;
      n.y += dy;
    }
  }
  renderMoved(selected);
  humanChanged();
}

function focusNeighbour(step: number): void {
  const ids = [...graph.nodes.keys()];
  if (!ids.length) return;
  const current = (document.activeElement as Element | null)?.closest?.(".node") as SVGGElement | null;
  const i = current?.dataset.id ? ids.indexOf(current.dataset.id) : -1;
  const next = ids[(i + step + ids.length) % ids.length];
  nodeEls.get(next)?.focus();
}

document.addEventListener("keydown", (ev) => {
  if (editing) return;
  const target = ev.target as Element | null;
  if (target && target.closest("select, input, textarea")) return;
  const onButton = !!target?.closest("button");
  const mod = ev.ctrlKey || ev.metaKey;
  const key = ev.key;
  const focusedNode = (target?.closest?.(".node") as SVGGElement | null)?.dataset.id;
  let handled = true;
  if (mod && key.toLowerCase() === "z" && !ev.shiftKey) undo();
  else if (mod && (key.toLowerCase() === "y" || (key.toLowerCase() === "z" && ev.shiftKey))) redo();
  else if (mod && key.toLowerCase() === "a") setSelection(graph.nodes.keys(), []);
  else if (mod) handled = false;
  else if (key === "Delete" || key === "Backspace") humanDelete();
  else if ((key === "Enter" || key === "F2") && focusedNode) startEdit(focusedNode, "node");
  else if (onButton) handled = false;
  else if (key === "Escape") setSelection([], []);
  else if (key === "n" || key === "N") humanAddNode(undefined, selected.size === 1 && key === "N" ? [...selected][0] : undefined);
  else if (key === "c") connectSelected();
  else if (key === "l") doLayout();
  else if (key === "+" || key === "=") zoomAt(1.25);
  else if (key === "-") zoomAt(0.8);
  else if (key === "0") fit();
  else if (key.startsWith("Arrow") && selected.size) {
    const s = ev.shiftKey ? 50 : 10;
    nudge(key === "ArrowLeft" ? -s : key === "ArrowRight" ? s : 0, key === "ArrowUp" ? -s : key === "ArrowDown" ? s : 0);
  } else if (key === "]") focusNeighbour(1);
  else if (key === "[") focusNeighbour(-1);
  else handled = false;
  if (handled) ev.preventDefault();
});

function connectSelected(): void {
  const ids = [...selected];
  if (ids.length < 2) return say("Select two or more nodes (Shift+click) to connect them.", true);
  for (let i = 1; i < ids.length; i++) humanConnect(ids[0], ids[i]);
}

function doLayout(): void {
  if (!graph.nodes.size) return;
  remember();
  runLayout(directionSel.value as Direction);
  humanChanged();
  say("Laid out.");
}

// ---- export for the human --------------------------------------------------

interface Paint {
  fill: string;
  stroke: string;
  text: string;
}

function paintOf(id: string): Paint {
  const g = nodeEls.get(id);
  const shape = g?.children[0] as SVGPathElement | undefined;
  const text = g?.children[1] as SVGTextElement | undefined;
  const cs = shape ? getComputedStyle(shape) : null;
  return {
    fill: cs?.fill || "#ffffff",
    stroke: cs?.stroke || "#555555",
    text: text ? getComputedStyle(text).fill : "#111111",
  };
}

function exportColors(): { bg: string; line: string; label: string } {
  const cs = getComputedStyle(document.documentElement);
  return {
    bg: cs.getPropertyValue("--board").trim() || "#ffffff",
    line: cs.getPropertyValue("--edge").trim() || "#777777",
    label: cs.getPropertyValue("--muted").trim() || "#555555",
  };
}

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);
}

function buildSVG(): string {
  const b = graph.bounds() ?? { x: 0, y: 0, w: 100, h: 60 };
  const pad = 24;
  const c = exportColors();
  const vb = `${Math.floor(b.x - pad)} ${Math.floor(b.y - pad)} ${Math.ceil(b.w + pad * 2)} ${Math.ceil(b.h + pad * 2)}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${vb}" width="${Math.ceil(b.w + pad * 2)}" height="${Math.ceil(b.h + pad * 2)}" font-family="system-ui, sans-serif" font-size="14">`,
    `<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${c.line}"/></marker></defs>`,
    `<rect x="${Math.floor(b.x - pad)}" y="${Math.floor(b.y - pad)}" width="100%" height="100%" fill="${c.bg}"/>`,
  ];
  for (const e of graph.edges.values()) {
    const a = graph.nodes.get(e.from);
    const z = graph.nodes.get(e.to);
    if (!a || !z || a === z) continue;
    const l = edgeLine(a, z, graph.hasEdge(e.to, e.from));
    out.push(`<line x1="${l.x1.toFixed(1)}" y1="${l.y1.toFixed(1)}" x2="${l.x2.toFixed(1)}" y2="${l.y2.toFixed(1)}" stroke="${c.line}" stroke-width="1.6" marker-end="url(#a)"/>`);
    if (e.label) out.push(`<text x="${((l.x1 + l.x2) / 2).toFixed(1)}" y="${((l.y1 + l.y2) / 2 - 6).toFixed(1)}" text-anchor="middle" font-size="12" fill="${c.label}">${esc(e.label)}</text>`);
  }
  for (const n of graph.nodes.values()) {
    const { w, h, lines } = measure(n.label, n.shape);
    const p = paintOf(n.id);
    out.push(`<g transform="translate(${n.x.toFixed(1)} ${n.y.toFixed(1)})"><path d="${shapePath(n.shape, w, h)}" fill="${p.fill}" stroke="${p.stroke}" stroke-width="1.6"/>`);
    out.push(`<text text-anchor="middle" dominant-baseline="central" fill="${p.text}">`);
    lines.forEach((line, i) => out.push(`<tspan x="0" y="${(i - (lines.length - 1) / 2) * 18}">${esc(line)}</tspan>`));
    out.push(`</text></g>`);
  }
  out.push("</svg>");
  return out.join("\n");
}

function drawPNG(scale = 2): HTMLCanvasElement {
  const b = graph.bounds() ?? { x: 0, y: 0, w: 100, h: 60 };
  const pad = 24;
  const c = exportColors();
  const canvas = document.createElement("canvas");
  canvas.width = Math.min(8000, Math.ceil((b.w + pad * 2) * scale));
  canvas.height = Math.min(8000, Math.ceil((b.h + pad * 2) * scale));
  const k = Math.min(scale, canvas.width / (b.w + pad * 2), canvas.height / (b.h + pad * 2));
  const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(k, 0, 0, k, (pad - b.x) * k, (pad - b.y) * k);
  ctx.lineWidth = 1.6;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const e of graph.edges.values()) {
    const a = graph.nodes.get(e.from);
    const z = graph.nodes.get(e.to);
    if (!a || !z || a === z) continue;
    const l = edgeLine(a, z, graph.hasEdge(e.to, e.from));
    ctx.strokeStyle = c.line;
    ctx.fillStyle = c.line;
    ctx.beginPath();
    ctx.moveTo(l.x1, l.y1);
    ctx.lineTo(l.x2, l.y2);
    ctx.stroke();
    const ang = Math.atan2(l.y2 - l.y1, l.x2 - l.x1);
    ctx.beginPath();
    ctx.moveTo(l.x2, l.y2);
    ctx.lineTo(l.x2 - 10 * Math.cos(ang - 0.4), l.y2 - 10 * Math.sin(ang - 0.4));
    ctx.lineTo(l.x2 - 10 * Math.cos(ang + 0.4), l.y2 - 10 * Math.sin(ang + 0.4));
    ctx.closePath();
    ctx.fill();
    if (e.label) {
      ctx.fillStyle = c.label;
      ctx.fillText(e.label, (l.x1 + l.x2) / 2, (l.y1 + l.y2) / 2 - 8);
    }
  }
  ctx.font = "14px system-ui, sans-serif";
  for (const n of graph.nodes.values()) {
    const { w, h, lines } = measure(n.label, n.shape);
    const p = paintOf(n.id);
    ctx.save();
    ctx.translate(n.x, n.y);
    const path = new Path2D(shapePath(n.shape, w, h));
    ctx.fillStyle = p.fill;
    ctx.fill(path);
    ctx.strokeStyle = p.stroke;
    ctx.stroke(path);
    ctx.fillStyle = p.text;
    lines.forEach((line, i) => ctx.fillText(line, 0, (i - (lines.length - 1) / 2) * 18));
    ctx.restore();
  }
  return canvas;
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function exportSVG(): void {
  if (!graph.nodes.size) return say("Nothing to export yet.", true);
  download(new Blob([buildSVG()], { type: "image/svg+xml" }), "graph.svg");
  say("Saved graph.svg.");
}

function exportPNG(): void {
  if (!graph.nodes.size) return say("Nothing to export yet.", true);
  drawPNG().toBlob((blob) => {
    if (!blob) return say("Could not make the picture.", true);
    download(blob, "graph.png");
    say("Saved graph.png.");
  }, "image/png");
}

// ---- commands from Claude ----------------------------------------------------

function idsOf(data: Data): string[] {
  const list = Array.isArray(data.ids) ? data.ids : [];
  const out = list.filter(validId);
  if (validId(data.id)) out.push(data.id);
  return out;
}

function refuse(type: string, why: string): void {
  console.warn(`graph: ${type} ignored: ${why}`);
  say(`Claude asked for something this board cannot do: ${why}`, true);
}

function claudeChanged(): void {
  renderAll();
  scheduleSnapshot();
}

lip.on("graph.node.add", (data) => {
  if (graph.nodes.size >= MAX_NODES) return refuse("graph.node.add", `at most ${MAX_NODES} nodes`);
  if (validId(data.id) && graph.nodes.has(data.id)) return refuse("graph.node.add", `a node ${data.id} exists already`);
  remember("claude");
  const near = validId(data.near) ? graph.nodes.get(data.near) : undefined;
  const n = addNode({
    id: validId(data.id) ? data.id : undefined,
    label: cleanLabel(data.label),
    at: cleanPoint(data.at),
    near: near ?? (selected.size === 1 ? graph.nodes.get([...selected][0]) : undefined),
    shape: cleanShape(data.shape),
    color: cleanColor(data.color),
  });
  claudeChanged();
  flash([n.id]);
});

lip.on("graph.node.update", (data) => {
  const n = validId(data.id) ? graph.nodes.get(data.id) : undefined;
  if (!n) return refuse("graph.node.update", `there is no node ${String(data.id)}`);
  remember("claude");
  if (typeof data.label === "string") n.label = cleanLabel(data.label);
  const at = cleanPoint(data.at);
  if (at) {
    n.x = at.x;
    n.y = at.y;
  }
  if (data.shape !== undefined) n.shape = cleanShape(data.shape, n.shape);
  if (data.color !== undefined) {
    const c = cleanColor(data.color);
    if (c) n.color = c;
    else delete n.color;
  }
  claudeChanged();
  flash([n.id]);
});

lip.on("graph.node.remove", (data) => {
  const ids = idsOf(data).filter((id) => graph.nodes.has(id));
  if (!ids.length) return;
  remember("claude");
  removeNodes(ids);
  claudeChanged();
});

lip.on("graph.edge.add", (data) => {
  if (graph.edges.size >= MAX_EDGES) return refuse("graph.edge.add", `at most ${MAX_EDGES} links`);
  const from = validId(data.from) ? data.from : "";
  const to = validId(data.to) ? data.to : "";
  if (!graph.nodes.has(from) || !graph.nodes.has(to)) return refuse("graph.edge.add", `no node ${graph.nodes.has(from) ? to : from}`);
  if (graph.hasEdge(from, to)) return;
  remember("claude");
  addEdge(from, to, cleanLabel(data.label) || undefined, validId(data.id) ? data.id : undefined);
  claudeChanged();
});

lip.on("graph.edge.remove", (data) => {
  const ids = idsOf(data);
  if (validId(data.from) && validId(data.to)) {
    for (const e of graph.edges.values()) if (e.from === data.from && e.to === data.to) ids.push(e.id);
  }
  const gone = ids.filter((id) => graph.edges.has(id));
  if (!gone.length) return;
  remember("claude");
  for (const id of gone) {
    graph.edges.delete(id);
    selectedEdges.delete(id);
  }
  claudeChanged();
});

lip.on("graph.select", (data) => {
  setSelection(idsOf(data), [], false);
});

lip.on("graph.layout", (data) => {
  const d = data.direction;
  const direction: Direction = d === "right" || d === "up" || d === "left" ? d : "down";
  if (!graph.nodes.size) return;
  remember("claude");
  runLayout(direction);
  scheduleSnapshot(700);
});

lip.on("graph.focus", (data) => {
  const ids = idsOf(data).filter((id) => graph.nodes.has(id));
  if (!ids.length) return refuse("graph.focus", "none of these nodes exist");
  fit(ids);
  flash(ids, "focus");
  svg.dataset.focus = ids.join(" ");
});

lip.on("graph.clear", () => {
  if (!graph.nodes.size) return;
  remember();
  graph.nodes.clear();
  graph.edges.clear();
  selected.clear();
  selectedEdges.clear();
  claudeChanged();
  say("Claude cleared the board. Ctrl+Z brings it back.");
});

lip.on("graph.load", (data) => {
  const res = graph.load(data);
  undoStack.length = 0;
  redoStack.length = 0;
  selected.clear();
  selectedEdges.clear();
  if (!res.placed && graph.nodes.size) runLayout("down", false);
  renderAll();
  const v = data.viewport as Data | undefined;
  const z = v && typeof v.zoom === "number" ? v.zoom : 0;
  if (v && typeof v.x === "number" && typeof v.y === "number" && z >= MIN_ZOOM && z <= MAX_ZOOM) setView({ x: v.x, y: v.y, zoom: z }, false);
  else fit(undefined, false);
  if (res.dropped) say(`Loaded ${res.nodes} nodes and ${res.edges} links (${res.dropped} broken entries left out).`, true);
  else say(res.nodes ? `Loaded ${res.nodes} node${res.nodes === 1 ? "" : "s"} and ${res.edges} link${res.edges === 1 ? "" : "s"}.` : "");
});

// ---- toolbar ---------------------------------------------------------------

const on = (id: string, f: () => void) => $(id).addEventListener("click", f);
on("add", () => humanAddNode(undefined, selected.size === 1 ? [...selected][0] : undefined));
on("connect", connectSelected);
on("delete", humanDelete);
on("undo", undo);
on("redo", redo);
on("layout", doLayout);
on("fit", () => fit());
on("zoom-in", () => zoomAt(1.25));
on("zoom-out", () => zoomAt(0.8));
on("export-png", exportPNG);
on("export-svg", exportSVG);
on("send", sendToClaude);

// Left/Right (and Home/End) also move along the toolbar.
const bar = document.querySelector(".bar") as HTMLElement;
bar.addEventListener("keydown", (ev) => {
  const keys = ["ArrowLeft", "ArrowRight", "Home", "End"];
  if (!keys.includes(ev.key) || (ev.target as Element).closest("select")) return;
  const items = [...bar.querySelectorAll<HTMLElement>("button:not(:disabled), select")];
  const i = items.indexOf(ev.target as HTMLElement);
  if (i < 0) return;
  ev.preventDefault();
  ev.stopPropagation();
  const next = ev.key === "Home" ? 0 : ev.key === "End" ? items.length - 1 : (i + (ev.key === "ArrowRight" ? 1 : -1) + items.length) % items.length;
  items[next].focus();
});

// Shape and colour pickers apply to the selection (and to new nodes).
function restyle(): void {
  if (!selected.size) return;
  remember();
  for (const id of selected) {
    const n = graph.nodes.get(id);
    if (!n) continue;
    n.shape = cleanShape(shapeSel.value, n.shape);
    const c = cleanColor(colorSel.value);
    if (c) n.color = c;
    else delete n.color;
  }
  renderAll();
  humanChanged();
}
shapeSel.addEventListener("change", restyle);
colorSel.addEventListener("change", restyle);

window.addEventListener("resize", () => applyView());

// A hook for tests and for people curious in the console.
(window as unknown as { graphDebug: unknown }).graphDebug = {
  graph,
  get view() {
    return { ...view };
  },
  setView: (v: Viewport) => setView(v, false),
  selection: () => [...selected],
  buildSVG,
  drawPNG,
};

if (!hasLip) say("Open this in Lets to share the graph with Claude.", true);
{
  const { w, h } = size();
  view = { x: -w / 2, y: -h / 3, zoom: 1 };
}
applyView();
renderAll();
lip.ready();

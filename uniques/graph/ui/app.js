// Generated from uniques/_graph/*.ts by `go generate ./uniques/` (the esbuild Go API). Edit the TypeScript.
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // uniques/_graph/model.ts
  var SHAPES = ["box", "round", "ellipse", "diamond", "note"];
  var PALETTE = ["gray", "blue", "green", "yellow", "orange", "red", "purple", "pink"];
  var MAX_LABEL = 200;
  var MAX_NODES = 2e3;
  var MAX_EDGES = 5e3;
  var ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;
  function validId(v) {
    return typeof v === "string" && ID_RE.test(v);
  }
  function cleanLabel(v) {
    if (typeof v !== "string") return "";
    return v.replace(/\s+/g, " ").trim().slice(0, MAX_LABEL);
  }
  function cleanShape(v, fallback = "box") {
    return SHAPES.includes(v) ? v : fallback;
  }
  function cleanColor(v) {
    if (typeof v !== "string") return void 0;
    if (PALETTE.includes(v)) return v;
    return /^#[0-9a-fA-F]{6}$/.test(v) ? v.toLowerCase() : void 0;
  }
  function num(v) {
    return typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= 1e6 ? v : void 0;
  }
  function cleanPoint(v) {
    if (!v || typeof v !== "object") return void 0;
    const p = v;
    const x = num(p.x);
    const y = num(p.y);
    return x === void 0 || y === void 0 ? void 0 : { x, y };
  }
  var CHAR_W = 7.3;
  var LINE_H = 18;
  var WRAP = 24;
  var MAX_LINES = 3;
  var sizeCache = /* @__PURE__ */ new Map();
  function measure(label, shape) {
    const key = shape + "\0" + label;
    const hit = sizeCache.get(key);
    if (hit) return hit;
    const words = (label || " ").split(" ");
    const lines = [];
    let line = "";
    for (const word of words) {
      let w2 = word;
      while (w2.length > WRAP) {
        if (line) {
          lines.push(line);
          line = "";
        }
        lines.push(w2.slice(0, WRAP));
        w2 = w2.slice(WRAP);
      }
      if (!line) line = w2;
      else if (line.length + 1 + w2.length <= WRAP) line += " " + w2;
      else {
        lines.push(line);
        line = w2;
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
    const size2 = { w, h, lines };
    if (sizeCache.size > 5e3) sizeCache.clear();
    sizeCache.set(key, size2);
    return size2;
  }
  function shapePath(shape, w, h) {
    const x = -w / 2;
    const y = -h / 2;
    const f = (n) => Math.round(n * 10) / 10;
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
        return `M${f(x + r)},${f(y)}H${f(-x - r)}A${f(r)},${f(r)} 0 0 1 ${f(-x)},${f(y + r)}V${f(-y - r)}A${f(r)},${f(r)} 0 0 1 ${f(-x - r)},${f(-y)}H${f(x + r)}A${f(r)},${f(r)} 0 0 1 ${f(x)},${f(-y - r)}V${f(y + r)}A${f(r)},${f(r)} 0 0 1 ${f(x + r)},${f(y)}Z`;
      }
    }
  }
  function boundary(n, dx, dy) {
    const { w, h } = measure(n.label, n.shape);
    const len = Math.hypot(dx, dy) || 1;
    const ux = dx / len;
    const uy = dy / len;
    const a = w / 2;
    const b = h / 2;
    let t;
    if (n.shape === "ellipse") t = 1 / Math.sqrt(ux * ux / (a * a) + uy * uy / (b * b));
    else if (n.shape === "diamond") t = 1 / (Math.abs(ux) / a + Math.abs(uy) / b);
    else t = Math.min(ux ? a / Math.abs(ux) : Infinity, uy ? b / Math.abs(uy) : Infinity);
    return { x: n.x + ux * t, y: n.y + uy * t };
  }
  function edgeLine(a, b, twoWay = false) {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const p = boundary(a, dx, dy);
    const q = boundary(b, -dx, -dy);
    if (!twoWay) return { x1: p.x, y1: p.y, x2: q.x, y2: q.y };
    const len = Math.hypot(dx, dy) || 1;
    const ox = -dy / len * 7;
    const oy = dx / len * 7;
    return { x1: p.x + ox, y1: p.y + oy, x2: q.x + ox, y2: q.y + oy };
  }
  var Graph = class {
    constructor() {
      __publicField(this, "nodes", /* @__PURE__ */ new Map());
      __publicField(this, "edges", /* @__PURE__ */ new Map());
      __publicField(this, "nextNode", 1);
      __publicField(this, "nextEdge", 1);
    }
    newNodeId() {
      let id;
      do
        id = "n" + this.nextNode++;
      while (this.nodes.has(id));
      return id;
    }
    newEdgeId() {
      let id;
      do
        id = "e" + this.nextEdge++;
      while (this.edges.has(id));
      return id;
    }
    edgesOf(id) {
      const out = [];
      for (const e of this.edges.values()) if (e.from === id || e.to === id) out.push(e);
      return out;
    }
    hasEdge(from, to) {
      for (const e of this.edges.values()) if (e.from === from && e.to === to) return true;
      return false;
    }
    label(id) {
      return this.nodes.get(id)?.label ?? id;
    }
    toWire() {
      return {
        nodes: [...this.nodes.values()].map(wireNode),
        edges: [...this.edges.values()].map((e) => ({ ...e }))
      };
    }
    /** Replaces everything with checked wire data; returns what was dropped. */
    load(data) {
      this.nodes.clear();
      this.edges.clear();
      this.nextNode = 1;
      this.nextEdge = 1;
      let dropped = 0;
      let unplaced = 0;
      const list = Array.isArray(data.nodes) ? data.nodes.slice(0, MAX_NODES) : [];
      for (const raw of list) {
        const r = raw ?? {};
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
          color: cleanColor(r.color)
        });
      }
      const elist = Array.isArray(data.edges) ? data.edges.slice(0, MAX_EDGES) : [];
      for (const raw of elist) {
        const r = raw ?? {};
        if (!validId(r.from) || !validId(r.to) || !this.nodes.has(r.from) || !this.nodes.has(r.to)) {
          dropped++;
          continue;
        }
        const id = validId(r.id) && !this.edges.has(r.id) ? r.id : this.newEdgeId();
        const label = cleanLabel(r.label);
        this.edges.set(id, { id, from: r.from, to: r.to, ...label ? { label } : {} });
      }
      return { nodes: this.nodes.size, edges: this.edges.size, dropped, placed: unplaced === 0 };
    }
    bounds(ids) {
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      const pick = ids ? [...ids].map((id) => this.nodes.get(id)).filter((n) => !!n) : [...this.nodes.values()];
      for (const n of pick) {
        const { w, h } = measure(n.label, n.shape);
        x0 = Math.min(x0, n.x - w / 2);
        y0 = Math.min(y0, n.y - h / 2);
        x1 = Math.max(x1, n.x + w / 2);
        y1 = Math.max(y1, n.y + h / 2);
      }
      return pick.length ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
    }
  };
  function wireNode(n) {
    const out = { id: n.id, label: n.label, at: { x: Math.round(n.x), y: Math.round(n.y) }, shape: n.shape };
    if (n.color) out.color = n.color;
    return out;
  }
  function layered(g, direction) {
    const ids = [...g.nodes.keys()];
    const index = new Map(ids.map((id, i) => [id, i]));
    const out = ids.map(() => []);
    for (const e of g.edges.values()) {
      const a = index.get(e.from);
      const b = index.get(e.to);
      if (a === void 0 || b === void 0 || a === b) continue;
      out[a].push(b);
    }
    const state2 = new Uint8Array(ids.length);
    const succ = ids.map(() => []);
    const pred = ids.map(() => []);
    const addEdge2 = (a, b) => {
      if (!succ[a].includes(b)) {
        succ[a].push(b);
        pred[b].push(a);
      }
    };
    const indeg = new Array(ids.length).fill(0);
    for (const list of out) for (const b of list) indeg[b]++;
    const order = [...ids.keys()].sort((a, b) => (indeg[a] === 0 ? 0 : 1) - (indeg[b] === 0 ? 0 : 1) || a - b);
    for (const root of order) {
      if (state2[root]) continue;
      const stack = [[root, 0]];
      state2[root] = 1;
      while (stack.length) {
        const top = stack[stack.length - 1];
        const [v, i] = top;
        if (i < out[v].length) {
          top[1]++;
          const w = out[v][i];
          if (state2[w] === 1) addEdge2(w, v);
          else {
            addEdge2(v, w);
            if (state2[w] === 0) {
              state2[w] = 1;
              stack.push([w, 0]);
            }
          }
        } else {
          state2[v] = 2;
          stack.pop();
        }
      }
    }
    const layer = new Array(ids.length).fill(0);
    const left = pred.map((p) => p.length);
    const queue = [];
    for (let v = 0; v < ids.length; v++) if (left[v] === 0) queue.push(v);
    for (let qi = 0; qi < queue.length; qi++) {
      const v = queue[qi];
      for (const w of succ[v]) {
        layer[w] = Math.max(layer[w], layer[v] + 1);
        if (--left[w] === 0) queue.push(w);
      }
    }
    for (let v = 0; v < ids.length; v++) {
      if (pred[v].length === 0 && succ[v].length > 0) {
        layer[v] = Math.min(...succ[v].map((w) => layer[w])) - 1;
      }
    }
    const depth = Math.max(0, ...layer);
    const layers = Array.from({ length: depth + 1 }, () => []);
    for (let v = 0; v < ids.length; v++) layers[Math.max(0, layer[v])].push(v);
    const pos = new Float64Array(ids.length);
    const setPos = (l) => l.forEach((v, i) => pos[v] = i - (l.length - 1) / 2);
    layers.forEach(setPos);
    const sweep = (l, from) => {
      const bary = /* @__PURE__ */ new Map();
      for (const v of l) {
        const ns = from[v];
        bary.set(v, ns.length ? ns.reduce((s, w) => s + pos[w], 0) / ns.length : pos[v]);
      }
      l.sort((a, b) => bary.get(a) - bary.get(b) || pos[a] - pos[b]);
      setPos(l);
    };
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i < layers.length; i++) sweep(layers[i], pred);
      for (let i = layers.length - 2; i >= 0; i--) sweep(layers[i], succ);
    }
    const vertical = direction === "down" || direction === "up";
    const GAP_ACROSS = vertical ? 36 : 22;
    const GAP_ALONG = vertical ? 64 : 84;
    const result = /* @__PURE__ */ new Map();
    let along = 0;
    for (const l of layers) {
      const sizes = l.map((v) => {
        const n = g.nodes.get(ids[v]);
        return measure(n.label, n.shape);
      });
      const thick = Math.max(0, ...sizes.map((s) => vertical ? s.h : s.w));
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
  function quote(s) {
    return s ? `"${s}"` : "(no label)";
  }
  function summaryLine(g) {
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
  function textSummary(g, selection, max = 12e3) {
    const n = g.nodes.size;
    const m = g.edges.size;
    const lines = [`A graph with ${n} node${n === 1 ? "" : "s"} and ${m} link${m === 1 ? "" : "s"}.`];
    if (n === 0) return lines[0];
    const hasIn = /* @__PURE__ */ new Set();
    const hasOut = /* @__PURE__ */ new Set();
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

  // uniques/_graph/drag.ts
  var MOVE_SLOP = 3;
  var PAN_SLOP = 3;
  function followMove(d, p, zoom) {
    const dx = p.x - d.start.x;
    const dy = p.y - d.start.y;
    if (!d.moved && Math.hypot(dx, dy) * zoom < MOVE_SLOP) return null;
    d.moved = true;
    const at = /* @__PURE__ */ new Map();
    for (const [id, o] of d.origin) at.set(id, { x: o.x + dx, y: o.y + dy });
    return at;
  }
  function followPan(d, clientX, clientY) {
    const dx = clientX - d.startX;
    const dy = clientY - d.startY;
    if (Math.hypot(dx, dy) > PAN_SLOP) d.moved = true;
    return { ...d.view, x: d.view.x - dx / d.view.zoom, y: d.view.y - dy / d.view.zoom };
  }

  // uniques/_graph/main.ts
  var SVG_NS = "http://www.w3.org/2000/svg";
  var MIN_ZOOM = 0.1;
  var MAX_ZOOM = 4;
  var HISTORY = 100;
  var $ = (id) => document.getElementById(id);
  var svg = $("canvas");
  var wrap = $("board-wrap");
  var viewG = $("viewport");
  var edgeLayer = $("edges");
  var nodeLayer = $("nodes");
  var preview = $("preview");
  var box = $("box");
  var editor = $("editor");
  var statusEl = $("status");
  var emptyHint = $("empty");
  var counts = $("counts");
  var directionSel = $("direction");
  var shapeSel = $("shape");
  var colorSel = $("color");
  var reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  var hasLip = !!window.lip;
  var lip = window.lip ?? {
    emit() {
    },
    on() {
    },
    export() {
    },
    snapshot() {
    },
    ready() {
    },
    context() {
    }
  };
  var graph = new Graph();
  var selected = /* @__PURE__ */ new Set();
  var selectedEdges = /* @__PURE__ */ new Set();
  var view = { x: -400, y: -240, zoom: 1 };
  var nodeEls = /* @__PURE__ */ new Map();
  var edgeEls = /* @__PURE__ */ new Map();
  var statusTimer = 0;
  function say(text, warn = false) {
    statusEl.textContent = text;
    statusEl.classList.toggle("warn", warn);
    clearTimeout(statusTimer);
    if (text) statusTimer = window.setTimeout(() => statusEl.textContent = "", 6e3);
  }
  var undoStack = [];
  var redoStack = [];
  var groupKey = "";
  var groupAt = 0;
  function state() {
    return graph.toWire();
  }
  function remember(group = "") {
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
  function restore(s) {
    graph.load(s);
    selected = new Set([...selected].filter((id) => graph.nodes.has(id)));
    selectedEdges = new Set([...selectedEdges].filter((id) => graph.edges.has(id)));
    renderAll();
  }
  function undo() {
    const s = undoStack.pop();
    if (!s) return say("Nothing to undo.");
    redoStack.push(state());
    groupKey = "";
    restore(s);
    humanChanged();
    say("Undone.");
  }
  function redo() {
    const s = redoStack.pop();
    if (!s) return say("Nothing to redo.");
    undoStack.push(state());
    groupKey = "";
    restore(s);
    humanChanged();
    say("Redone.");
  }
  var MAX_WIRE = 2e5;
  function wireWithin(limit) {
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
  var changedTimer = 0;
  var snapshotTimer = 0;
  function humanChanged() {
    clearTimeout(changedTimer);
    changedTimer = window.setTimeout(function emitChanged() {
      if (editing?.fresh) changedTimer = window.setTimeout(emitChanged, 250);
      else lip.emit("graph.changed", wireWithin(MAX_WIRE));
    }, 250);
    scheduleSnapshot();
  }
  function scheduleSnapshot(delay = 500) {
    clearTimeout(snapshotTimer);
    snapshotTimer = window.setTimeout(function save() {
      if (editing?.fresh) snapshotTimer = window.setTimeout(save, 250);
      else lip.snapshot({ summary: summaryLine(graph), ...wireWithin(MAX_WIRE), viewport: roundView() });
    }, delay);
  }
  function roundView() {
    return { x: Math.round(view.x), y: Math.round(view.y), zoom: Math.round(view.zoom * 1e3) / 1e3 };
  }
  function emitSelection() {
    const ids = [...selected];
    lip.emit("graph.node.select", { ids, labels: ids.map((id) => graph.label(id)) });
  }
  function sendToClaude() {
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
      viewport: roundView()
    });
    say("Sent to Claude — the answer comes in your conversation.");
  }
  function el(tag, attrs = {}) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }
  var committed = { ...view };
  var commitTimer = 0;
  var viewAnim = 0;
  var layoutsRunning = 0;
  function commitView() {
    clearTimeout(commitTimer);
    commitTimer = 0;
    committed = { ...view };
    viewG.setAttribute("transform", `scale(${view.zoom}) translate(${-view.x} ${-view.y})`);
    svg.style.removeProperty("transform");
    svg.dataset.zoom = view.zoom.toFixed(3);
    markAnimating();
  }
  function applyView() {
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
  function drawNode(n, degree) {
    let g = nodeEls.get(n.id);
    if (!g) {
      g = el("g", { class: "node", tabindex: "0", role: "button" });
      g.dataset.id = n.id;
      g.append(el("path", { class: "shape" }), el("text", { class: "label" }), el("circle", { class: "handle", r: "7" }));
      const handle = g.lastElementChild;
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
      g.children[0].setAttribute("d", shapePath(n.shape, w, h));
      const text = g.children[1];
      text.replaceChildren(
        ...lines.map((line, i) => {
          const t = el("tspan", { x: "0", y: String((i - (lines.length - 1) / 2) * 18) });
          t.textContent = line;
          return t;
        })
      );
      const handle = g.children[2];
      handle.setAttribute("cx", String(Math.round(w / 2)));
      handle.setAttribute("cy", "0");
    }
    g.setAttribute("transform", `translate(${Math.round(n.x * 10) / 10} ${Math.round(n.y * 10) / 10})`);
    g.classList.toggle("selected", selected.has(n.id));
    g.setAttribute("aria-pressed", String(selected.has(n.id)));
    const links = degree ? degree.get(n.id) ?? 0 : graph.edgesOf(n.id).length;
    g.setAttribute("aria-label", `${n.label || "Untitled"} — node, ${links} link${links === 1 ? "" : "s"}`);
    return g;
  }
  function drawEdge(e) {
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
    let x1, y1, x2, y2;
    if (a === b) {
      const { h } = measure(a.label, a.shape);
      x1 = a.x - 10;
      y1 = a.y - h / 2;
      x2 = a.x + 10;
      y2 = a.y - h / 2 - 1;
    } else ({ x1, y1, x2, y2 } = edgeLine(a, b, graph.hasEdge(e.to, e.from)));
    const r = (v) => String(Math.round(v * 10) / 10);
    for (const line of [g.children[0], g.children[1]]) {
      line.setAttribute("x1", r(x1));
      line.setAttribute("y1", r(y1));
      line.setAttribute("x2", r(x2));
      line.setAttribute("y2", r(y2));
    }
    const text = g.children[2];
    if ((text.textContent ?? "") !== (e.label ?? "")) text.textContent = e.label ?? "";
    text.setAttribute("x", r((x1 + x2) / 2));
    text.setAttribute("y", r((y1 + y2) / 2 - 6));
    g.classList.toggle("selected", selectedEdges.has(e.id));
  }
  function renderAll() {
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
    const degree = /* @__PURE__ */ new Map();
    for (const e of graph.edges.values()) {
      degree.set(e.from, (degree.get(e.from) ?? 0) + 1);
      if (e.to !== e.from) degree.set(e.to, (degree.get(e.to) ?? 0) + 1);
    }
    for (const n2 of graph.nodes.values()) drawNode(n2, degree);
    for (const e of graph.edges.values()) drawEdge(e);
    emptyHint.hidden = graph.nodes.size > 0;
    const n = graph.nodes.size;
    const m = graph.edges.size;
    counts.textContent = `${n} node${n === 1 ? "" : "s"} · ${m} link${m === 1 ? "" : "s"}`;
    svg.dataset.nodes = String(n);
    svg.dataset.edges = String(m);
    updateButtons();
  }
  function renderMoved(ids) {
    const touched = /* @__PURE__ */ new Set();
    for (const id of ids) {
      const n = graph.nodes.get(id);
      if (n) drawNode(n);
      touched.add(id);
    }
    for (const e of graph.edges.values()) if (touched.has(e.from) || touched.has(e.to)) drawEdge(e);
  }
  function renderSelection() {
    for (const [id, g] of nodeEls) {
      const on2 = selected.has(id);
      g.classList.toggle("selected", on2);
      g.setAttribute("aria-pressed", String(on2));
    }
    for (const [id, g] of edgeEls) g.classList.toggle("selected", selectedEdges.has(id));
    updateButtons();
  }
  function updateButtons() {
    $("undo").disabled = undoStack.length === 0;
    $("redo").disabled = redoStack.length === 0;
    $("delete").disabled = selected.size + selectedEdges.size === 0;
    $("connect").disabled = selected.size < 2;
    $("send").disabled = graph.nodes.size === 0;
  }
  function flash(ids, cls = "fresh") {
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
  function size() {
    const r = wrap.getBoundingClientRect();
    return { w: r.width || 800, h: r.height || 600 };
  }
  function toGraph(clientX, clientY) {
    const r = wrap.getBoundingClientRect();
    return { x: view.x + (clientX - r.left) / view.zoom, y: view.y + (clientY - r.top) / view.zoom };
  }
  function toScreen(p) {
    const r = wrap.getBoundingClientRect();
    return { x: r.left + (p.x - view.x) * view.zoom, y: r.top + (p.y - view.y) * view.zoom };
  }
  function zoomAt(factor, clientX, clientY) {
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
  function markAnimating() {
    svg.toggleAttribute("data-animating", viewAnim !== 0 || layoutsRunning > 0 || commitTimer !== 0);
  }
  function setView(target, animate = true) {
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
    const step = (now) => {
      const t = Math.min(1, (now - start) / 280);
      const k = t * (2 - t);
      view = {
        x: from.x + (target.x - from.x) * k,
        y: from.y + (target.y - from.y) * k,
        zoom: from.zoom + (target.zoom - from.zoom) * k
      };
      applyView();
      viewAnim = t < 1 ? requestAnimationFrame(step) : 0;
      markAnimating();
    };
    viewAnim = requestAnimationFrame(step);
    markAnimating();
  }
  function fit(ids, animate = true) {
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
  function placeNear(anchor) {
    if (anchor) {
      const { h: h2 } = measure(anchor.label, anchor.shape);
      const siblings = graph.edgesOf(anchor.id).filter((e) => e.from === anchor.id).length;
      return { x: anchor.x + siblings * 40 - 20 * Math.min(siblings, 1), y: anchor.y + h2 + 60 + siblings * 8 };
    }
    const { w, h } = size();
    const c = { x: view.x + w / 2 / view.zoom, y: view.y + h / 2 / view.zoom };
    for (let i = 0; i < 40; i++) {
      const p = { x: c.x + i % 5 * 30, y: c.y + Math.floor(i / 5) * 60 };
      let free = true;
      for (const n of graph.nodes.values()) if (Math.abs(n.x - p.x) < 60 && Math.abs(n.y - p.y) < 30) free = false;
      if (free) return p;
    }
    return c;
  }
  function addNode(opts) {
    const id = opts.id && !graph.nodes.has(opts.id) ? opts.id : graph.newNodeId();
    const at = opts.at ?? placeNear(opts.near);
    const n = { id, label: opts.label, x: at.x, y: at.y, shape: opts.shape ?? "box", ...opts.color ? { color: opts.color } : {} };
    graph.nodes.set(id, n);
    return n;
  }
  function addEdge(from, to, label, id) {
    if (!graph.nodes.has(from) || !graph.nodes.has(to) || graph.hasEdge(from, to)) return null;
    const e = { id: id && validId(id) && !graph.edges.has(id) ? id : graph.newEdgeId(), from, to, ...label ? { label } : {} };
    graph.edges.set(e.id, e);
    return e;
  }
  function removeNodes(ids) {
    const gone = ids.filter((id) => graph.nodes.has(id));
    const edges = [];
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
  function runLayout(direction, animate = true) {
    const before = graph.bounds();
    const target = layered(graph, direction);
    let minX = Infinity;
    let minY = Infinity;
    for (const [id, p] of target) {
      const n = graph.nodes.get(id);
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
    svg.dataset.layout = direction;
    const finish = () => {
      for (const [id, p] of target) {
        const n = graph.nodes.get(id);
        if (n) {
          n.x = p.x;
          n.y = p.y;
        }
      }
      renderAll();
      fit(void 0, animate);
    };
    if (!animate || reducedMotion.matches || graph.nodes.size > 300) return finish();
    layoutsRunning++;
    markAnimating();
    const from = new Map([...graph.nodes.values()].map((n) => [n.id, { x: n.x, y: n.y }]));
    const start = performance.now();
    const step = (now) => {
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
  function setSelection(ids, edges = [], emit = true) {
    const next = new Set([...ids].filter((id) => graph.nodes.has(id)));
    const same = next.size === selected.size && [...next].every((id) => selected.has(id));
    selected = next;
    selectedEdges = new Set(edges);
    renderSelection();
    if (emit && !same) emitSelection();
  }
  function humanAddNode(at, from) {
    remember();
    const near = from ? graph.nodes.get(from) : void 0;
    const n = addNode({ label: "", at, near, shape: cleanShape(shapeSel.value), color: cleanColor(colorSel.value) });
    renderAll();
    setSelection([n.id], [], false);
    startEdit(n.id, "node", true, from);
    return n;
  }
  function humanConnect(from, to) {
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
  function humanDelete() {
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
  var editing = null;
  function startEdit(id, kind, fresh = false, from) {
    let center;
    let before;
    let width;
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
  function finishEdit(commit) {
    if (!editing) return;
    const { id, kind, fresh, from, before, depth } = editing;
    editing = null;
    editor.hidden = true;
    const label = cleanLabel(editor.value);
    if (kind === "node") {
      const n = graph.nodes.get(id);
      if (!n) return;
      if (fresh && !commit) {
        graph.nodes.delete(id);
        selected.delete(id);
        if (undoStack.length === depth) undoStack.pop();
        renderAll();
        updateButtons();
        svg.focus({ preventScroll: true });
        say("No node added.");
        return;
      }
      if (fresh) {
        n.label = commit ? label : "";
        drawNode(n);
        let edge = null;
        if (from) edge = addEdge(from, id);
        renderAll();
        lip.emit("graph.node.add", { ...wireNode(n), ...from ? { from } : {} });
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
      nodeEls.get(id)?.focus({ preventScroll: true });
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
  var drag = null;
  function targetOf(ev) {
    const t = ev.target;
    const node = t?.closest?.(".node");
    if (node) return { node: node.dataset.id, handle: !!t?.closest?.(".handle") };
    const edge = t?.closest?.(".edge");
    if (edge) return { edge: edge.dataset.id };
    return {};
  }
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || editing) return;
    const hit = targetOf(ev);
    svg.setPointerCapture(ev.pointerId);
    if (hit.node && hit.handle) {
      drag = { kind: "connect", from: hit.node, pointer: ev.pointerId };
      const n = graph.nodes.get(hit.node);
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
      const origin = new Map([...selected].map((sid) => [sid, { x: graph.nodes.get(sid).x, y: graph.nodes.get(sid).y }]));
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
  function follow(ev) {
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
  function endDrag(ev) {
    if (!drag || ev.pointerId !== drag.pointer) return;
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
        const node = under?.closest?.(".node");
        if (node && node.dataset.id && node.dataset.id !== d.from) humanConnect(d.from, node.dataset.id);
        else if (!node && ev.type === "pointerup") humanAddNode(toGraph(ev.clientX, ev.clientY), d.from);
        break;
      }
    }
  }
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  svg.addEventListener("dblclick", (ev) => {
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const hit = targetOf({ target: under });
    if (hit.node) startEdit(hit.node, "node");
    else if (hit.edge) startEdit(hit.edge, "edge");
    else humanAddNode(toGraph(ev.clientX, ev.clientY));
  });
  svg.addEventListener(
    "wheel",
    (ev) => {
      ev.preventDefault();
      if (ev.ctrlKey || ev.metaKey || Math.abs(ev.deltaY) >= Math.abs(ev.deltaX)) {
        zoomAt(Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 15e-4)), ev.clientX, ev.clientY);
      } else {
        view.x += ev.deltaX / view.zoom;
        applyView();
      }
    },
    { passive: false }
  );
  svg.addEventListener("contextmenu", (ev) => {
    const hit = targetOf(ev);
    if (hit.node && !selected.has(hit.node)) setSelection([hit.node], []);
  });
  svg.addEventListener("focusin", (ev) => {
    const g = ev.target.closest(".node");
    if (g?.dataset.id && !drag && !selected.has(g.dataset.id) && !editing) setSelection([g.dataset.id], []);
  });
  function contextFor(target, ev) {
    const node = target?.closest?.(".node");
    if (node?.dataset.id && graph.nodes.has(node.dataset.id)) {
      const n = graph.nodes.get(node.dataset.id);
      const edges = graph.edgesOf(n.id);
      return {
        node: {
          ...wireNode(n),
          in: edges.filter((e) => e.to === n.id).slice(0, 20).map((e) => graph.label(e.from)),
          out: edges.filter((e) => e.from === n.id).slice(0, 20).map((e) => graph.label(e.to))
        }
      };
    }
    const edge = target?.closest?.(".edge");
    if (edge?.dataset.id && graph.edges.has(edge.dataset.id)) {
      const e = graph.edges.get(edge.dataset.id);
      return { edge: { ...e, fromLabel: graph.label(e.from), toLabel: graph.label(e.to) } };
    }
    const p = toGraph(ev.clientX, ev.clientY);
    return { area: "board", at: { x: Math.round(p.x), y: Math.round(p.y) }, selection: [...selected] };
  }
  lip.context(contextFor);
  function nudge(dx, dy) {
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
  function focusNeighbour(step) {
    const ids = [...graph.nodes.keys()];
    if (!ids.length) return;
    const current = document.activeElement?.closest?.(".node");
    const i = current?.dataset.id ? ids.indexOf(current.dataset.id) : -1;
    const next = ids[(i + step + ids.length) % ids.length];
    nodeEls.get(next)?.focus();
  }
  document.addEventListener("keydown", (ev) => {
    if (editing) return;
    const target = ev.target;
    if (target && target.closest("select, input, textarea")) return;
    const onButton = !!target?.closest("button");
    const mod = ev.ctrlKey || ev.metaKey;
    const key = ev.key;
    const focusedNode = target?.closest?.(".node")?.dataset.id;
    let handled = true;
    if (mod && key.toLowerCase() === "z" && !ev.shiftKey) undo();
    else if (mod && (key.toLowerCase() === "y" || key.toLowerCase() === "z" && ev.shiftKey)) redo();
    else if (mod && key.toLowerCase() === "a") setSelection(graph.nodes.keys(), []);
    else if (mod) handled = false;
    else if (key === "Delete" || key === "Backspace") humanDelete();
    else if ((key === "Enter" || key === "F2") && focusedNode) startEdit(focusedNode, "node");
    else if (onButton) handled = false;
    else if (key === "Escape") setSelection([], []);
    else if (key === "n" || key === "N") humanAddNode(void 0, selected.size === 1 && key === "N" ? [...selected][0] : void 0);
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
  function connectSelected() {
    const ids = [...selected];
    if (ids.length < 2) return say("Select two or more nodes (Shift+click) to connect them.", true);
    for (let i = 1; i < ids.length; i++) humanConnect(ids[0], ids[i]);
  }
  function doLayout() {
    if (!graph.nodes.size) return;
    remember();
    runLayout(directionSel.value);
    humanChanged();
    say("Laid out.");
  }
  function paintOf(id) {
    const g = nodeEls.get(id);
    const shape = g?.children[0];
    const text = g?.children[1];
    const cs = shape ? getComputedStyle(shape) : null;
    return {
      fill: cs?.fill || "#ffffff",
      stroke: cs?.stroke || "#555555",
      text: text ? getComputedStyle(text).fill : "#111111"
    };
  }
  function exportColors() {
    const cs = getComputedStyle(document.documentElement);
    return {
      bg: cs.getPropertyValue("--board").trim() || "#ffffff",
      line: cs.getPropertyValue("--edge").trim() || "#777777",
      label: cs.getPropertyValue("--muted").trim() || "#555555"
    };
  }
  function esc(s) {
    return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }
  function buildSVG() {
    const b = graph.bounds() ?? { x: 0, y: 0, w: 100, h: 60 };
    const pad = 24;
    const c = exportColors();
    const vb = `${Math.floor(b.x - pad)} ${Math.floor(b.y - pad)} ${Math.ceil(b.w + pad * 2)} ${Math.ceil(b.h + pad * 2)}`;
    const out = [
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${vb}" width="${Math.ceil(b.w + pad * 2)}" height="${Math.ceil(b.h + pad * 2)}" font-family="system-ui, sans-serif" font-size="14">`,
      `<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${c.line}"/></marker></defs>`,
      `<rect x="${Math.floor(b.x - pad)}" y="${Math.floor(b.y - pad)}" width="100%" height="100%" fill="${c.bg}"/>`
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
  function drawPNG(scale = 2) {
    const b = graph.bounds() ?? { x: 0, y: 0, w: 100, h: 60 };
    const pad = 24;
    const c = exportColors();
    const canvas = document.createElement("canvas");
    canvas.width = Math.min(8e3, Math.ceil((b.w + pad * 2) * scale));
    canvas.height = Math.min(8e3, Math.ceil((b.h + pad * 2) * scale));
    const k = Math.min(scale, canvas.width / (b.w + pad * 2), canvas.height / (b.h + pad * 2));
    const ctx = canvas.getContext("2d");
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
  function download(blob, name) {
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1e4);
  }
  function exportSVG() {
    if (!graph.nodes.size) return say("Nothing to export yet.", true);
    download(new Blob([buildSVG()], { type: "image/svg+xml" }), "graph.svg");
    say("Saved graph.svg.");
  }
  function exportPNG() {
    if (!graph.nodes.size) return say("Nothing to export yet.", true);
    drawPNG().toBlob((blob) => {
      if (!blob) return say("Could not make the picture.", true);
      download(blob, "graph.png");
      say("Saved graph.png.");
    }, "image/png");
  }
  function idsOf(data) {
    const list = Array.isArray(data.ids) ? data.ids : [];
    const out = list.filter(validId);
    if (validId(data.id)) out.push(data.id);
    return out;
  }
  function refuse(type, why) {
    console.warn(`graph: ${type} ignored: ${why}`);
    say(`Claude asked for something this board cannot do: ${why}`, true);
  }
  function claudeChanged() {
    renderAll();
    scheduleSnapshot();
  }
  lip.on("graph.node.add", (data) => {
    if (graph.nodes.size >= MAX_NODES) return refuse("graph.node.add", `at most ${MAX_NODES} nodes`);
    if (validId(data.id) && graph.nodes.has(data.id)) return refuse("graph.node.add", `a node ${data.id} exists already`);
    remember("claude");
    const near = validId(data.near) ? graph.nodes.get(data.near) : void 0;
    const n = addNode({
      id: validId(data.id) ? data.id : void 0,
      label: cleanLabel(data.label),
      at: cleanPoint(data.at),
      near: near ?? (selected.size === 1 ? graph.nodes.get([...selected][0]) : void 0),
      shape: cleanShape(data.shape),
      color: cleanColor(data.color)
    });
    claudeChanged();
    flash([n.id]);
  });
  lip.on("graph.node.update", (data) => {
    const n = validId(data.id) ? graph.nodes.get(data.id) : void 0;
    if (!n) return refuse("graph.node.update", `there is no node ${String(data.id)}`);
    remember("claude");
    if (typeof data.label === "string") n.label = cleanLabel(data.label);
    const at = cleanPoint(data.at);
    if (at) {
      n.x = at.x;
      n.y = at.y;
    }
    if (data.shape !== void 0) n.shape = cleanShape(data.shape, n.shape);
    if (data.color !== void 0) {
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
    addEdge(from, to, cleanLabel(data.label) || void 0, validId(data.id) ? data.id : void 0);
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
    const direction = d === "right" || d === "up" || d === "left" ? d : "down";
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
    const v = data.viewport;
    const z = v && typeof v.zoom === "number" ? v.zoom : 0;
    if (v && typeof v.x === "number" && typeof v.y === "number" && z >= MIN_ZOOM && z <= MAX_ZOOM) setView({ x: v.x, y: v.y, zoom: z }, false);
    else fit(void 0, false);
    if (res.dropped) say(`Loaded ${res.nodes} nodes and ${res.edges} links (${res.dropped} broken entries left out).`, true);
    else say(res.nodes ? `Loaded ${res.nodes} node${res.nodes === 1 ? "" : "s"} and ${res.edges} link${res.edges === 1 ? "" : "s"}.` : "");
  });
  var on = (id, f) => $(id).addEventListener("click", f);
  on("add", () => humanAddNode(void 0, selected.size === 1 ? [...selected][0] : void 0));
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
  var bar = document.querySelector(".bar");
  bar.addEventListener("keydown", (ev) => {
    const keys = ["ArrowLeft", "ArrowRight", "Home", "End"];
    if (!keys.includes(ev.key) || ev.target.closest("select")) return;
    const items = [...bar.querySelectorAll("button:not(:disabled), select")];
    const i = items.indexOf(ev.target);
    if (i < 0) return;
    ev.preventDefault();
    ev.stopPropagation();
    const next = ev.key === "Home" ? 0 : ev.key === "End" ? items.length - 1 : (i + (ev.key === "ArrowRight" ? 1 : -1) + items.length) % items.length;
    items[next].focus();
  });
  function restyle() {
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
  window.graphDebug = {
    graph,
    get view() {
      return { ...view };
    },
    setView: (v) => setView(v, false),
    selection: () => [...selected],
    buildSVG,
    drawPNG
  };
  if (!hasLip) say("Open this in Lets to share the graph with Claude.", true);
  {
    const { w, h } = size();
    view = { x: -w / 2, y: -h / 3, zoom: 1 };
  }
  applyView();
  renderAll();
  lip.ready();
})();

// The unique SDK: served by the unique's own origin as /lip/sdk.js and
// injected at the top of the unique's HTML. It gives the page `window.lip`
// and talks to the shell page only: a hello by postMessage to the shell's
// exact origin, then a private MessageChannel port (spec lip-1 §7).

import { emitRefusal, parseDeclared } from "./emitrule";
import { isValidType } from "./envelope";
import { disarmWebRTC } from "./nowebrtc";

// The host replaces this with the shell's origin when it serves the file.
const SHELL_ORIGIN = "__LETS_SHELL_ORIGIN__";
// ... and this with what the unique declared ({unique, events, export,
// snapshot} as JSON), so lip.emit can refuse a type at the call.
const DECLARED = parseDeclared("__LETS_DECLARED__");

type Handler = (data: Record<string, unknown>, envelope: Record<string, unknown>) => void;

interface PortMessage {
  op: string;
  rid?: number;
  ok?: boolean;
  value?: unknown;
  error?: { code: string; message: string };
  envelope?: Record<string, unknown>;
}

(() => {
  // Before anything of the unique runs (issue #10).
  disarmWebRTC(window);
  const w = window as unknown as { lip?: unknown };
  if (w.lip) return;

  let port: MessagePort | null = null;
  const outbox: unknown[] = [];
  const handlers = new Map<string, Set<Handler>>();
  const errorHandlers = new Set<(e: { code: string; message: string; re?: string }) => void>();
  // Commands that arrived before a handler for their type was registered.
  const early: Record<string, unknown>[] = [];
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextRid = 1;
  let readySent = false;
  const transcriptHandlers = new Set<(messages: unknown[], why: string) => void>();
  let lastTranscript: { messages: unknown[]; why: string } | null = null;
  let contextFn: ((target: Element | null, ev: MouseEvent) => unknown) | null = null;

  function post(msg: unknown, transfer: Transferable[] = []): void {
    if (port) port.postMessage(msg, transfer);
    else if (outbox.length < 500) outbox.push(msg);
  }

  function request(msg: Record<string, unknown>): Promise<unknown> {
    const rid = nextRid++;
    return new Promise((resolve, reject) => {
      waiting.set(rid, { resolve, reject });
      post({ ...msg, rid });
    });
  }

  function dispatch(env: Record<string, unknown>): boolean {
    const type = String(env.type);
    const set = handlers.get(type);
    const any = handlers.get("*");
    if (!set?.size && !any?.size) return false;
    const data = (env.data as Record<string, unknown>) ?? {};
    for (const h of [...(set ?? []), ...(any ?? [])]) {
      try {
        h(data, env);
      } catch (err) {
        console.error(`lip: the handler for ${type} failed`, err);
      }
    }
    return true;
  }

  /** The control that had the focus last (for the shell's refocus). */
  let lastFocused: HTMLElement | null = null;

  function onPort(ev: MessageEvent): void {
    const m = ev.data as PortMessage;
    if (!m || typeof m !== "object") return;
    switch (m.op) {
      case "command":
        if (m.envelope && !dispatch(m.envelope) && early.length < 200) early.push(m.envelope);
        break;
      case "result": {
        const wt = m.rid !== undefined ? waiting.get(m.rid) : undefined;
        if (!wt) return;
        waiting.delete(m.rid as number);
        if (m.ok) wt.resolve(m.value);
        else wt.reject(Object.assign(new Error(m.error?.message ?? "failed"), { code: m.error?.code }));
        break;
      }
      case "theme":
        applyTheme(m as unknown as { name?: string; scheme?: string; vars?: Record<string, unknown> });
        break;
      case "chat": {
        const c = m as unknown as { event?: string; messages?: unknown; why?: unknown };
        if (c.event !== "transcript" || !Array.isArray(c.messages)) break;
        lastTranscript = { messages: c.messages, why: String(c.why ?? "") };
        for (const h of transcriptHandlers) {
          try {
            h(c.messages, lastTranscript.why);
          } catch (err) {
            console.error("lip: the chat transcript handler failed", err);
          }
        }
        break;
      }
      case "refocus":
        // The shell's prompt closed and gave the focus back to this frame:
        // back onto the control that had it, not the page's body.
        if ((document.activeElement === null || document.activeElement === document.body) && lastFocused?.isConnected) lastFocused.focus({ preventScroll: true });
        break;
      case "error":
        for (const h of errorHandlers) h(m.error as { code: string; message: string });
        if (!errorHandlers.size) console.warn("lip:", m.error?.code, m.error?.message);
        break;
    }
  }

  // The shell's theme as CSS variables on the unique's root element
  // (var(--lets-accent) and friends), plus data-lets-theme="light|dark".
  // The shell checked the values; names are checked again here.
  function applyTheme(t: { name?: string; scheme?: string; vars?: Record<string, unknown> }): void {
    const el = document.documentElement;
    for (const [k, v] of Object.entries(t.vars ?? {})) {
      if (/^--lets-[a-z0-9-]{1,48}$/.test(k) && typeof v === "string") el.style.setProperty(k, v);
    }
    if (t.scheme === "light" || t.scheme === "dark") {
      el.dataset.letsTheme = t.scheme;
      el.style.setProperty("color-scheme", t.scheme);
    }
  }

  window.addEventListener("message", (ev: MessageEvent) => {
    // Only the shell page that frames us, from its exact origin.
    if (ev.source !== window.parent || ev.origin !== SHELL_ORIGIN) return;
    const d = ev.data as { lets?: string };
    if (!d || d.lets !== "port" || !ev.ports[0]) return;
    port = ev.ports[0];
    port.onmessage = onPort;
    for (const m of outbox.splice(0)) port.postMessage(m);
    if (readySent) port.postMessage({ op: "ready" });
    lastControls = "";
    controlsSoon();
  });

  function checkType(type: string): void {
    if (!isValidType(type)) throw new TypeError(`lip: "${type}" is not a LIP type (lowercase words joined by dots, like "graph.node.select")`);
  }

  function objectOf(data: unknown): Record<string, unknown> {
    if (data === undefined || data === null) return {};
    if (typeof data !== "object" || Array.isArray(data)) throw new TypeError("lip: data must be a plain object");
    return data as Record<string, unknown>;
  }

  const lip = {
    version: 1,
    /** Emit one of the unique's declared events; any other type throws. */
    emit(type: string, data?: Record<string, unknown>): void {
      checkType(type);
      const refusal = emitRefusal(type, DECLARED);
      if (refusal) throw new TypeError(refusal);
      post({ op: "emit", type, data: objectOf(data) });
    },
    /** Handle a command (a declared one, or a core command); "*" gets all. */
    on(type: string, handler: Handler): () => void {
      if (type !== "*") checkType(type);
      let set = handlers.get(type);
      if (!set) handlers.set(type, (set = new Set()));
      set.add(handler);
      for (let i = 0; i < early.length; ) {
        const env = early[i];
        if (type === "*" || env.type === type) {
          early.splice(i, 1);
          dispatch(env);
        } else i++;
      }
      return () => set?.delete(handler);
    },
    /** Hear about refused events and other protocol errors. */
    onError(handler: (e: { code: string; message: string }) => void): () => void {
      errorHandlers.add(handler);
      return () => errorHandlers.delete(handler);
    },
    /** Call the companion to a point inside the unique, with context. */
    summon(x: number, y: number, context?: unknown): void {
      post({ op: "emit", type: "entity.summon", data: { x, y, ...(context === undefined ? {} : { context }) } });
    },
    /** Hand the current state to Claude ("Send to Claude"). */
    export(data?: Record<string, unknown>): void {
      post({ op: "export", data: objectOf(data) });
    },
    /** Update the saved session silently. */
    snapshot(data?: Record<string, unknown>): void {
      post({ op: "snapshot", data: objectOf(data) });
    },
    /** Upload an image; resolves to {path, w, h, mime, bytes}. */
    upload(blob: Blob, opts: { componentId?: string; source?: "paste" | "drop" | "file" } = {}): Promise<unknown> {
      if (!(blob instanceof Blob)) return Promise.reject(new TypeError("lip.upload takes a Blob or File"));
      return request({ op: "upload", blob, componentId: opts.componentId, source: opts.source ?? "file" });
    },
    /** Ask the host to run code (needs permissions.exec and the human's yes). */
    run(language: string, code: string, opts: { stdin?: string; timeoutMs?: number } = {}): Promise<unknown> {
      return request({ op: "run", language, code, stdin: opts.stdin, timeoutMs: opts.timeoutMs });
    },
    /** Say that commands may flow (done automatically after load). */
    ready(): void {
      if (readySent) return;
      readySent = true;
      post({ op: "ready" });
    },
    /**
     * The shell's chat as the window's main view (the built-in chat
     * unique uses it). The unique's page becomes a band above the chat.
     */
    chat: Object.freeze({
      /** Dock the chat as the main view; the page keeps a band of `band` px (0–240, default 64). */
      dock(opts: { band?: number } = {}): void {
        post({ op: "chat", action: "dock", band: opts.band ?? 64 });
      },
      /** A welcome line from the companion and chips the human may press to send a first message. */
      intro(text: string, suggestions: string[] = []): void {
        post({ op: "chat", action: "intro", text: String(text ?? ""), suggestions: Array.isArray(suggestions) ? suggestions.map(String) : [] });
      },
      /** Put a saved conversation back: [{role: "human"|"claude", text, at, kind?, attachments?}]. */
      load(messages: unknown[]): void {
        post({ op: "chat", action: "load", messages: Array.isArray(messages) ? messages : [] });
      },
      /** Hear the whole conversation after each turn (only once docked). */
      onChange(handler: (messages: unknown[], why: string) => void): () => void {
        transcriptHandlers.add(handler);
        if (lastTranscript) handler(lastTranscript.messages, lastTranscript.why);
        return () => transcriptHandlers.delete(handler);
      },
    }),
    /** Give summons from the context menu something to carry. */
    context(fn: (target: Element | null, ev: MouseEvent) => unknown): void {
      contextFn = fn;
    },
  };
  w.lip = Object.freeze(lip);

  window.addEventListener("contextmenu", (ev: MouseEvent) => {
    if (!contextFn) return;
    ev.preventDefault();
    let context: unknown;
    try {
      context = contextFn(ev.target instanceof Element ? ev.target : null, ev);
    } catch (err) {
      console.error("lip: the context function failed", err);
    }
    lip.summon(ev.clientX, ev.clientY, context);
  });

  // The companion follows the pointer over the unique too (issue #11): the
  // shell gets at most one position per frame and counts of clicks and
  // keys (never which key). The shell keeps them local; only aggregated
  // counts ever reach Claude (entity.profile).
  let lastPointer = { x: 0, y: 0 };
  let pointerQueued = false;
  const toShell = (m: Record<string, unknown>) => port?.postMessage(m);
  window.addEventListener("pointermove", (ev: PointerEvent) => {
    lastPointer = { x: ev.clientX, y: ev.clientY };
    if (pointerQueued) return;
    pointerQueued = true;
    requestAnimationFrame(() => {
      pointerQueued = false;
      toShell({ op: "pointer", kind: "move", x: lastPointer.x, y: lastPointer.y });
    });
  }, { passive: true });
  window.addEventListener("pointerdown", () => toShell({ op: "pointer", kind: "down" }), { passive: true });
  window.addEventListener("keydown", (ev: KeyboardEvent) => {
    if (!(ev.ctrlKey && ev.code === "Space")) {
      toShell({ op: "pointer", kind: "key" });
      return;
    }
    // Ctrl+Space calls the companion here, with the unique's context for
    // the focused element (or the one under the pointer).
    ev.preventDefault();
    const focused = document.activeElement && document.activeElement !== document.body ? document.activeElement : null;
    const target = focused ?? document.elementFromPoint(lastPointer.x, lastPointer.y);
    let context: unknown;
    try {
      context = contextFn?.(target, new MouseEvent("contextmenu", { clientX: lastPointer.x, clientY: lastPointer.y }));
    } catch (err) {
      console.error("lip: the context function failed", err);
    }
    lip.summon(lastPointer.x, lastPointer.y, context);
  });

  // Where this page's controls are, for the companion to keep clear of
  // them (issue #21): the shell cannot read this document, so the SDK
  // tells it the boxes (never what the controls are or hold) when the
  // page changes, scrolls or resizes, at most once a frame, and the box of
  // a control that gets the focus.
  const CONTROLS =
    'a[href], button, input:not([type="hidden"]), select, textarea, summary, label, [contenteditable]:not([contenteditable="false"]), [tabindex]:not([tabindex="-1"]), [role="button"], [role="link"], [role="checkbox"], [role="radio"], [role="switch"], [role="slider"], [role="tab"], [role="menuitem"], [role="option"], [role="textbox"], [role="combobox"]';
  const FIELDS = "input, select, textarea, button, [contenteditable]";
  const boxOf = (el: Element): number[] | null => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) return null;
    // A big focusable region (a canvas, a scroll box) is a place, not a
    // control to keep clear of; a big text field is one all the same.
    if (r.width * r.height > 0.4 * innerWidth * innerHeight && !el.matches(FIELDS)) return null;
    if (getComputedStyle(el).visibility === "hidden") return null;
    return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
  };
  const canTab = (el: HTMLElement): boolean => {
    if (el.tabIndex < 0 || (el as HTMLButtonElement).disabled || el.closest("[hidden], [inert], fieldset[disabled]")) return false;
    if (el.getClientRects().length === 0) return false;
    return getComputedStyle(el).visibility !== "hidden";
  };
  let lastControls = "";
  let controlsQueued = false;
  const reportControls = () => {
    controlsQueued = false;
    if (!port) return;
    const rects: number[][] = [];
    for (const el of Array.from(document.querySelectorAll(CONTROLS))) {
      const b = boxOf(el);
      if (b) rects.push(b);
      if (rects.length >= 300) break;
    }
    // Whether Tab has anywhere to go in this page: while every control is
    // disabled or hidden (the chat band before the first message), the
    // shell takes the frame out of the Tab order, so it is no empty stop.
    // A page with no controls at all may take keys itself (a game): it
    // stays a stop.
    const all = Array.from(document.querySelectorAll<HTMLElement>(CONTROLS));
    const tabbable = all.length === 0 || all.some(canTab);
    const text = JSON.stringify([rects, tabbable]);
    if (text === lastControls) return;
    lastControls = text;
    port.postMessage({ op: "controls", rects, tabbable });
  };
  const controlsSoon = () => {
    if (controlsQueued) return;
    controlsQueued = true;
    requestAnimationFrame(reportControls);
  };
  new MutationObserver(controlsSoon).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden", "class", "style", "disabled", "open"] });
  window.addEventListener("resize", controlsSoon);
  window.addEventListener("scroll", controlsSoon, { capture: true, passive: true });
  window.addEventListener("transitionend", controlsSoon);
  window.addEventListener("animationend", controlsSoon);
  window.addEventListener("load", controlsSoon);
  document.addEventListener("focusin", (ev) => {
    if (ev.target instanceof HTMLElement && ev.target !== document.body) lastFocused = ev.target;
    const el = ev.target instanceof Element ? ev.target : null;
    const b = el && el.matches(CONTROLS) ? boxOf(el) : null;
    if (b) toShell({ op: "focus", rect: b });
  });

  // Images pasted or dropped on the unique go up as media.image, unless the
  // unique handled the event itself (preventDefault).
  function uploadImages(data: DataTransfer | null, source: "paste" | "drop"): boolean {
    let any = false;
    for (const item of Array.from(data?.items ?? [])) {
      if (item.kind === "file" && item.type.startsWith("image/")) {
        const f = item.getAsFile();
        if (f) {
          any = true;
          void lip.upload(f, { source }).catch((e) => console.warn("lip: upload failed", e));
        }
      }
    }
    return any;
  }
  window.addEventListener("paste", (ev: ClipboardEvent) => {
    if (!ev.defaultPrevented) uploadImages(ev.clipboardData, "paste");
  });
  window.addEventListener("dragover", (ev: DragEvent) => {
    if (!ev.defaultPrevented && Array.from(ev.dataTransfer?.types ?? []).includes("Files")) ev.preventDefault();
  });
  window.addEventListener("drop", (ev: DragEvent) => {
    if (!ev.defaultPrevented && uploadImages(ev.dataTransfer, "drop")) ev.preventDefault();
  });

  if (document.readyState === "complete") setTimeout(() => lip.ready(), 0);
  else window.addEventListener("load", () => setTimeout(() => lip.ready(), 0));

  if (window.parent !== window) window.parent.postMessage({ lets: "sdk-hello", v: 1 }, SHELL_ORIGIN);
})();

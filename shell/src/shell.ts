// The shell page of a window (origin A, host code): it frames the unique
// (origin U) in a sandboxed iframe, keeps the shell channel to the host
// (/lip/ws) with resume and acks, relays the unique's SDK messages, and
// draws host chrome: status, toasts, a speech bubble, notes, the chat
// stream, and the runner's allow prompt (spec lip-1 §1.3, §6, §7, §10).

import "./shell.css";
import "./chrome.css";
import { checkEnvelope, makeEnvelope, RESERVED_DOMAINS, type Envelope } from "./envelope";
import { mountCompanion, SHELL_CONTROLS } from "./entity/companion";
import { rectsOf, type Rect } from "./entity/clear";
import { backoff, Delivery, framesOf, uniqueMayEmit } from "./protocol";
import { Chat, type ChromeDeps, type UploadResult } from "./chat";
import { Components } from "./components";
import { imageFiles } from "./dom";
import { Prompts } from "./prompts";
import { Theme, Toasts, type ThemeState } from "./ui";

interface Config {
  window: string;
  token: string;
  unique: string;
  title: string;
  frameUrl: string;
  frameOrigin: string;
  version: string;
}

interface SessionTypes {
  export: string;
  snapshot: string;
  restore: string;
}

function readConfig(): Config {
  const el = document.getElementById("lets-config");
  if (!el?.textContent) throw new Error("the shell page has no config");
  return JSON.parse(el.textContent) as Config;
}

const cfg = readConfig();
// The token stays in memory only: take it out of the address bar and the
// page before anything else runs.
{
  const url = new URL(location.href);
  if (url.searchParams.has("t")) {
    url.searchParams.delete("t");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  document.getElementById("lets-config")?.remove();
}

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the shell page is missing #${id}`);
  return el as T;
}

const root = byId<HTMLDivElement>("lets-shell");
const statusEl = byId<HTMLSpanElement>("lets-status");
const frame = byId<HTMLIFrameElement>("lets-unique");
const toastStack = byId<HTMLDivElement>("lets-toasts");

function setState(state: "connecting" | "online" | "offline" | "closed", text: string): void {
  root.dataset.state = state;
  statusEl.textContent = text;
}

// ---------------------------------------------------------------- unique

let uniquePort: MessagePort | null = null;
/** The unique's controls in the frame's coordinates, as its SDK last reported them. */
let uniqueControls: Rect[] = [];
let uniqueReady = false;
let domains: string[] = [];
let sessionTypes: SessionTypes | null = null;

function toUnique(msg: unknown, transfer: Transferable[] = []): void {
  uniquePort?.postMessage(msg, transfer);
}

window.addEventListener("message", (ev: MessageEvent) => {
  // Only our iframe, from the unique's exact origin.
  if (ev.source !== frame.contentWindow || ev.origin !== cfg.frameOrigin) return;
  const d = ev.data as { lets?: string };
  if (!d || d.lets !== "sdk-hello") return;
  // A new document in the frame (a reload) gets a fresh channel.
  uniquePort?.close();
  const channel = new MessageChannel();
  uniquePort = channel.port1;
  uniqueReady = false;
  uniqueControls = [];
  uniquePort.onmessage = (m) => void fromUnique(m.data as Record<string, unknown>);
  frame.contentWindow?.postMessage({ lets: "port" }, cfg.frameOrigin, [channel.port2]);
  themeToUnique(theme.state());
});

function refuseToUnique(code: string, message: string): void {
  toUnique({ op: "error", error: { code, message } });
}

async function fromUnique(m: Record<string, unknown>): Promise<void> {
  if (!m || typeof m !== "object") return;
  const rid = m.rid as number | undefined;
  const reply = (ok: boolean, value: unknown, error?: { code: string; message: string }) =>
    toUnique({ op: "result", rid, ok, value, error });
  switch (m.op) {
    case "ready":
      uniqueReady = true;
      send(makeEnvelope("lip.ready", {}), "shell");
      break;
    case "emit":
    case "export":
    case "snapshot": {
      let type = String(m.type ?? "");
      if (m.op !== "emit") {
        if (!sessionTypes) return refuseToUnique("internal", "the shell is not connected yet; try again in a moment");
        type = m.op === "export" ? sessionTypes.export : sessionTypes.snapshot;
      }
      if (!uniqueMayEmit(type, domains, RESERVED_DOMAINS)) {
        return refuseToUnique("reserved_domain", `${type} is outside this unique's domains (${domains.join(", ")})`);
      }
      const c = checkEnvelope({ lip: 1, id: makeEnvelope(type).id, type, data: m.data ?? {} });
      if (!c.ok) return refuseToUnique(c.code, c.message);
      send(c.envelope, "unique");
      // The companion comes to where the human right-clicked in the unique.
      if (type === "entity.summon") companion.summonFromUnique(Number(c.envelope.data.x) || 0, Number(c.envelope.data.y) || 0);
      break;
    }
    case "chat":
      chatFromUnique(m);
      break;
    case "pointer":
      wake();
      // Pointer positions and counts over the unique: the companion follows
      // and aggregates them; they never go up raw.
      companion.uniquePointer(String(m.kind ?? ""), Number(m.x), Number(m.y));
      break;
    case "controls":
      // Where the unique's controls are (its SDK looks; the shell cannot
      // read the frame): the companion keeps clear of them.
      uniqueControls = rectsOf(m.rects);
      // Nothing in the unique takes the keyboard now (its buttons are all
      // disabled): the frame is no Tab stop until something does.
      if (m.tabbable === false) frame.tabIndex = -1;
      else frame.removeAttribute("tabindex");
      companion.settleSoon();
      break;
    case "focus": {
      const [r] = rectsOf([m.rect]);
      if (r) {
        const f = frame.getBoundingClientRect();
        companion.focusOn({ x: f.left + r.x, y: f.top + r.y, w: r.w, h: r.h });
      }
      break;
    }
    case "upload":
      try {
        reply(true, await upload(m.blob as Blob, String(m.source ?? "file"), m.componentId as string | undefined, "unique"));
      } catch (e) {
        reply(false, undefined, errorOf(e));
      }
      break;
    case "run":
      try {
        reply(true, await post("/lip/run", JSON.stringify({ language: m.language, code: m.code, stdin: m.stdin, timeoutMs: m.timeoutMs }), { "Content-Type": "application/json" }));
      } catch (e) {
        reply(false, undefined, errorOf(e));
      }
      break;
  }
}

// The docked chat (lip.chat, an addition to LIP 1 §7): a unique such as the
// built-in chat makes the shell's chat panel its main view, writes a
// welcome line and suggestion chips, and puts a saved conversation back.
// It cannot type into the input or send as the human; a chip is sent only
// when the human presses it. Once docked, the unique hears the transcript
// (sent turns, never the draft) for its export and snapshot.
const BAND_MIN = 0;
const BAND_MAX = 240;

function chatFromUnique(m: Record<string, unknown>): void {
  switch (m.action) {
    case "dock": {
      const band = Number(m.band);
      const px = Number.isFinite(band) ? Math.round(Math.min(BAND_MAX, Math.max(BAND_MIN, band))) : 64;
      root.style.setProperty("--lets-band", `${px}px`);
      root.dataset.chat = "main";
      frame.hidden = px === 0;
      chat.dock(root.querySelector<HTMLElement>(".stage") ?? root, document.getElementById("lets-dock"));
      toUnique({ op: "chat", event: "transcript", why: "docked", messages: chat.transcript() });
      break;
    }
    case "intro":
      chat.setIntro(typeof m.text === "string" ? m.text : "", Array.isArray(m.suggestions) ? m.suggestions.filter((x): x is string => typeof x === "string") : []);
      break;
    case "load":
      if (!chat.docked) return refuseToUnique("internal", "lip.chat.load works after lip.chat.dock()");
      chat.load(m.messages);
      break;
  }
}

// A pick in one of Claude's components, as a line of the docked chat.
function noteChoice(data: Record<string, unknown>): void {
  if (!chat.docked) return;
  const id = String(data.id ?? "");
  const box = Array.from(root.querySelectorAll<HTMLElement>(".component[data-component]")).find((el) => el.dataset.component === id);
  const labelOf = (v: unknown) => {
    const b = box ? Array.from(box.querySelectorAll<HTMLElement>("button[data-id]")).find((x) => x.dataset.id === String(v)) : undefined;
    return b?.textContent?.trim() || String(v);
  };
  if (data.action === "select") {
    const v = data.value;
    chat.choice(`Chose: ${Array.isArray(v) ? v.map(labelOf).join(", ") : labelOf(v)}`);
  } else if (data.action === "submit") {
    const v = data.value && typeof data.value === "object" ? (data.value as Record<string, unknown>) : {};
    const parts = Object.entries(v).map(([k, x]) => `${k}: ${typeof x === "string" ? x : JSON.stringify(x)}`);
    chat.choice(`Sent the form${parts.length ? ` — ${parts.join("; ")}` : ""}`.slice(0, 2000));
  } else if (data.action === "commit") {
    chat.choice(`Set to ${String(data.value)}`);
  }
}

function errorOf(e: unknown): { code: string; message: string } {
  const x = e as { code?: string; message?: string };
  return { code: x.code ?? "internal", message: x.message ?? String(e) };
}

async function post(path: string, body: BodyInit, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(path, { method: "POST", body, headers: { ...headers, "X-Lets-Token": cfg.token }, credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" });
  const json = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok) throw Object.assign(new Error(json.error?.message ?? res.statusText), { code: json.error?.code ?? String(res.status) });
  return json;
}

function upload(blob: Blob, source: string, componentId: string | undefined, via: "unique" | "shell"): Promise<UploadResult> {
  const headers: Record<string, string> = { "Content-Type": blob.type || "application/octet-stream", "X-Lets-Source": source, "X-Lets-Via": via };
  if (componentId) headers["X-Lets-Component"] = componentId;
  return post("/lip/upload", blob, headers) as Promise<UploadResult>;
}

// --------------------------------------------------------------- channel

const delivery = new Delivery();
let ws: WebSocket | null = null;
let attempt = 0;
let welcomed = false;
let everWelcomed = false;
let closedForGood = false;
const upQueue: string[] = [];

function send(env: Envelope, as: "shell" | "unique"): void {
  const text = JSON.stringify({ ...env, from: as });
  if (ws && welcomed && ws.readyState === WebSocket.OPEN) ws.send(text);
  else if (upQueue.length < 500) upQueue.push(text);
}

function connect(): void {
  if (closedForGood) return;
  const url = new URL("/lip/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("t", cfg.token);
  const sock = new WebSocket(url.toString());
  ws = sock;
  welcomed = false;
  sock.onopen = () => {
    const data: Record<string, unknown> = { shell: "lets-shell", version: cfg.version, window: cfg.window, medium: "screen", caps: ["entity", "toast", "theme", "note", "chat", "components", "media.image", "prompt", "approval"] };
    if (everWelcomed) data.resume = delivery.lastSeq;
    sock.send(JSON.stringify({ ...makeEnvelope("lip.hello", data), from: "shell" }));
  };
  sock.onmessage = (ev) => onFrame(String(ev.data));
  sock.onclose = (ev) => {
    if (ws !== sock) return;
    ws = null;
    welcomed = false;
    if (ev.code === 4410 || closedForGood) {
      closedForGood = true;
      setState("closed", "Closed");
      return;
    }
    if (ev.code === 4401 || ev.code === 4403) {
      setState("offline", "Lets refused this window");
      return;
    }
    setState("offline", "Reconnecting…");
    setTimeout(connect, backoff(attempt++));
  };
}

function onFrame(text: string): void {
  const acks: string[] = [];
  for (const env of framesOf(text)) {
    switch (env.type) {
      case "lip.welcome": {
        const d = env.data as { unique?: { domains?: string[] }; sessionTypes?: SessionTypes };
        domains = d.unique?.domains ?? [];
        sessionTypes = d.sessionTypes ?? null;
        welcomed = true;
        everWelcomed = true;
        attempt = 0;
        setState("online", "Connected to Lets");
        for (const t of upQueue.splice(0)) ws?.send(t);
        if (uniqueReady) send(makeEnvelope("lip.ready", {}), "shell");
        continue;
      }
      case "lip.ping":
        send(makeEnvelope("lip.pong", {}), "shell");
        continue;
      case "lip.pong":
        continue;
      case "lip.error": {
        const d = env.data as { code?: string; message?: string };
        console.warn("lets:", d.code, d.message);
        refuseToUnique(String(d.code ?? "internal"), String(d.message ?? ""));
        continue;
      }
    }
    if (delivery.accept(env)) apply(env);
  }
  acks.push(...delivery.takeAcks());
  if (acks.length) send(makeEnvelope("lip.ack", { ids: acks }), "shell");
}

// ----------------------------------------------------------------- chrome

function apply(env: Envelope): void {
  wake();
  const d = env.data ?? {};
  if (env.type.startsWith("entity.")) companion.handle(env.type, d);
  switch (env.type) {
    case "session.close":
      closeWindow(String(d.reason ?? "host"));
      break;
    case "ui.toast":
      toasts.show(String(d.text ?? ""), d.level, d.ttl);
      break;
    case "ui.theme":
      theme.apply(d);
      break;
    case "chat.open":
      chat.open();
      break;
    case "chat.close":
      chat.close();
      break;
    case "chat.say":
      chat.say(env.re ?? env.id, d);
      break;
    case "chat.typing":
      chat.typing(d.on === true);
      break;
    case "component.create":
      components.create(d);
      break;
    case "component.update":
      components.update(d);
      break;
    case "component.remove":
      components.remove(String(d.id ?? ""));
      break;
    case "shell.ask":
      prompts.ask(d as { id: string });
      return; // a host prompt is not the unique's business
    case "shell.dismiss":
      prompts.dismiss(String(d.id ?? ""));
      return;
  }
  // Every command also reaches the unique; it ignores what it does not handle.
  toUnique({ op: "command", envelope: env });
}

function closeWindow(reason: string): void {
  companion.flushProfile();
  closedForGood = true;
  const text = reason === "handoff" ? "Sent to Claude. You can close this window." : "This window was closed.";
  setState("closed", text);
  const overlay = document.createElement("div");
  overlay.className = "closed";
  overlay.setAttribute("role", "status");
  overlay.textContent = text;
  root.append(overlay);
  // Let the ack go out first, then say goodbye.
  setTimeout(() => {
    ws?.close(1000, "closed");
    window.close();
  }, 50);
}

// ------------------------------------------------------------------ start

// Chat, components, toasts, theme and prompts (issue #11): host chrome the
// unique cannot reach; human acts go up as the shell.
const chromeDeps: ChromeDeps = {
  emit: (type, data) => send(makeEnvelope(type, data), "shell"),
  upload: (blob, source, componentId) => upload(blob, source, componentId, "shell"),
};
const toasts = new Toasts(toastStack);
const components = new Components(root, {
  ...chromeDeps,
  emit: (type, data) => {
    chromeDeps.emit(type, data);
    if (type === "component.action") noteChoice(data);
  },
});
const chat = new Chat(root, root.querySelector<HTMLElement>(".bar"), chromeDeps);
chat.onTranscript = (messages, why) => toUnique({ op: "chat", event: "transcript", why, messages });
const prompts = new Prompts(root, (id, choice) => send(makeEnvelope("shell.answer", { id, choice }), "shell"));
// A prompt that closes gives the focus back to where it was (prompts.ts);
// when that was a control in the unique, the frame gets the focus but its
// page would leave it on its body: the SDK puts it back on the control
// (issue #26). The card is taken out of the page as it closes.
new MutationObserver((changes) => {
  const gone = changes.some((c) => Array.from(c.removedNodes).some((n) => n instanceof HTMLDialogElement && n.classList.contains("prompt")));
  if (gone && document.activeElement === frame && !root.querySelector("dialog.prompt[open]")) toUnique({ op: "refocus" });
}).observe(root, { childList: true });
function themeToUnique(s: ThemeState): void {
  toUnique({ op: "theme", name: s.name, scheme: s.scheme, vars: s.vars });
}
const theme = new Theme(root, themeToUnique);
// An image pasted or dropped anywhere on the shell's own chrome (not on a
// control that takes it itself) is uploaded; the host emits media.image.
document.addEventListener("paste", (ev) => {
  if (ev.defaultPrevented) return;
  for (const f of imageFiles(ev.clipboardData)) void upload(f, "paste", undefined, "shell").catch((e) => toasts.show(`The image could not be uploaded: ${errorOf(e).message}`, "error", 6000));
});
document.addEventListener("dragover", (ev) => {
  if (Array.from(ev.dataTransfer?.types ?? []).includes("Files")) ev.preventDefault();
});
document.addEventListener("drop", (ev) => {
  if (ev.defaultPrevented) return;
  ev.preventDefault();
  for (const f of imageFiles(ev.dataTransfer)) void upload(f, "drop", undefined, "shell").catch((e) => toasts.show(`The image could not be uploaded: ${errorOf(e).message}`, "error", 6000));
});
// Focus moving into the unique's frame is still this window's focus.
let focused = document.hasFocus();
const focusChanged = () =>
  setTimeout(() => {
    const now = document.hasFocus();
    if (now === focused) return;
    focused = now;
    send(makeEnvelope(now ? "session.focus" : "session.blur", {}), "shell");
  }, 0);
window.addEventListener("focus", focusChanged);
window.addEventListener("blur", focusChanged);
// The companion (entity, issue #11): drawn at once, before the channel is up.
const companion = mountCompanion(root, {
  emit: (type, data) => send(makeEnvelope(type, data), "shell"),
  frameRect: () => frame.getBoundingClientRect(),
  controls,
  reading,
});

/**
 * Claude's replies in the chat, the part of each in view (clipped to the
 * chat's log), in the shell's coordinates: the companion and its bubble
 * keep off them (issue #26).
 */
// A scrolled log moves the replies under the companion.
document.getElementById("lets-chat-log")?.addEventListener("scroll", () => companion.settleSoon(), { passive: true });
function reading(): Rect[] {
  const log = document.getElementById("lets-chat-log");
  if (!log || log.closest("[hidden]")) return [];
  const v = log.getBoundingClientRect();
  const out: Rect[] = [];
  for (const el of Array.from(log.querySelectorAll<HTMLElement>(".chat-msg.chat-bubble"))) {
    const r = el.getBoundingClientRect();
    const x = Math.max(r.left, v.left);
    const y = Math.max(r.top, v.top);
    const w = Math.min(r.right, v.right) - x;
    const h = Math.min(r.bottom, v.bottom) - y;
    if (w > 0 && h > 0) out.push({ x, y, w, h });
  }
  return out;
}

/**
 * The window's controls the companion keeps clear of: the shell's own
 * (chat, components, toasts, the bar) and the unique's where they show
 * (not under the shell's chrome), in the shell's coordinates.
 */
function controls(): Rect[] {
  const out: Rect[] = [];
  const pip = root.querySelector(".lets-companion");
  for (const el of Array.from(root.querySelectorAll(SHELL_CONTROLS))) {
    if (pip?.contains(el) || el.closest("[hidden]")) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push({ x: r.left, y: r.top, w: r.width, h: r.height });
  }
  const f = frame.getBoundingClientRect();
  if (frame.hidden || f.width <= 0 || f.height <= 0) return out;
  for (const r of uniqueControls) {
    const x = Math.max(f.left, f.left + r.x);
    const y = Math.max(f.top, f.top + r.y);
    const w = Math.min(f.right, f.left + r.x + r.w) - x;
    const h = Math.min(f.bottom, f.top + r.y + r.h) - y;
    if (w <= 0 || h <= 0) continue;
    // Under the shell's chrome (the chat, a side sheet) it cannot be reached anyway.
    const at = document.elementFromPoint(x + w / 2, y + h / 2);
    if (at !== frame && !pip?.contains(at)) continue;
    out.push({ x, y, w, h });
  }
  return out;
}
// Idle windows cost nothing (issue #21): after a while with no input and
// no command, or while the window is hidden, every animation of the shell
// (the companion breathing, a blinking cursor) holds still; the next input
// or command lets them run again. Reduced motion stops them in the CSS.
const STILL_AFTER_MS = 8000;
let stillTimer = 0;
function wake(): void {
  clearTimeout(stillTimer);
  if (document.visibilityState === "hidden") {
    root.dataset.still = "hidden";
    return;
  }
  if (root.dataset.still) delete root.dataset.still;
  stillTimer = window.setTimeout(() => (root.dataset.still = "idle"), STILL_AFTER_MS);
}
for (const type of ["pointermove", "pointerdown", "keydown", "wheel", "focusin"]) window.addEventListener(type, wake, { capture: true, passive: true });
document.addEventListener("visibilitychange", wake);
wake();
frame.src = cfg.frameUrl;
setState("connecting", "Connecting…");
connect();

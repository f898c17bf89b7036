// Pure parts of the shell, tested with Node: delivery bookkeeping for
// down-commands (dedupe, acks, resume), chat streams, theme variables and
// the component fallback (spec lip-1 §4.3, §6).

import type { Envelope } from "./envelope";

/**
 * Delivery tracks which down-commands the shell applied. Delivery is
 * at-least-once, so the shell de-duplicates by id; the highest applied seq
 * is the resume point of the next lip.hello.
 */
export class Delivery {
  private seen = new Set<string>();
  private order: string[] = [];
  private pendingAcks: string[] = [];
  lastSeq = 0;

  constructor(private readonly remember = 2000) {}

  /** Returns true when env is new and should be applied. */
  accept(env: Envelope): boolean {
    const fresh = !this.seen.has(env.id);
    if (fresh) {
      this.seen.add(env.id);
      this.order.push(env.id);
      if (this.order.length > this.remember) {
        const old = this.order.shift();
        if (old !== undefined) this.seen.delete(old);
      }
    }
    // A duplicate is acknowledged again: the host may have missed the ack.
    this.pendingAcks.push(env.id);
    if (typeof env.seq === "number" && env.seq > this.lastSeq) this.lastSeq = env.seq;
    return fresh;
  }

  /** The ids to acknowledge now (and forgets them). */
  takeAcks(): string[] {
    const ids = this.pendingAcks;
    this.pendingAcks = [];
    return ids;
  }
}

/** A frame from the host: one envelope or a batch. */
export function framesOf(text: string): Envelope[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is Envelope => typeof v === "object" && v !== null && typeof (v as Envelope).type === "string" && typeof (v as Envelope).id === "string");
}

/**
 * ChatStream assembles chat.say chunks that share a `re`: chunks are shown
 * in seq order, duplicates are ignored, and done:true finalises the bubble.
 */
export class ChatStream {
  private chunks = new Map<number, string>();
  private doneAt = -1;
  private nextAuto = 1;

  /** Adds a chunk; returns false for a duplicate. */
  add(data: { text?: unknown; seq?: unknown; done?: unknown }): boolean {
    const seq = typeof data.seq === "number" && Number.isInteger(data.seq) ? data.seq : this.nextAuto;
    this.nextAuto = Math.max(this.nextAuto, seq + 1);
    if (this.chunks.has(seq)) return false;
    this.chunks.set(seq, typeof data.text === "string" ? data.text : "");
    if (data.done === true) this.doneAt = seq;
    return true;
  }

  /** The text of the contiguous chunks from the first one. */
  text(): string {
    // A later chunk waits for the ones before it, so the bubble never
    // shows "world" and then jumps to "Hello world". Streams count from 1
    // (or 0 when a chunk 0 arrived).
    let seq = this.chunks.has(0) ? 0 : 1;
    let out = "";
    for (let n = 0; n <= this.chunks.size && this.chunks.has(seq); n++, seq++) out += this.chunks.get(seq);
    return out;
  }

  /** Chunks in display order. */
  parts(): string[] {
    return [...this.chunks.keys()].sort((a, b) => a - b).map((s) => this.chunks.get(s) ?? "");
  }

  /** True once the done chunk and every chunk before it arrived. */
  get done(): boolean {
    if (this.doneAt < 0) return false;
    const seqs = [...this.chunks.keys()].filter((s) => s <= this.doneAt);
    const first = Math.min(1, ...seqs);
    return seqs.length === this.doneAt - first + 1;
  }
}

const THEME_VAR_NAME = /^--lets-[a-z0-9-]{1,48}$/;
// Colours, lengths, numbers, keywords, simple functions such as rgb() or
// calc(); nothing that loads (url, image-set), runs (expression) or breaks
// out of the declaration.
const THEME_VAR_VALUE = /^[#a-zA-Z0-9 .,%()+*\/-]{1,120}$/;
const THEME_FORBIDDEN = /url\s*\(|expression|image-set|image\s*\(|\\|@import|;|{|}/i;

export interface ThemeResult {
  applied: Record<string, string>;
  refused: { name: string; reason: string }[];
}

/** Checks ui.theme vars: only --lets-* names with plain CSS values. */
export function checkThemeVars(vars: unknown): ThemeResult {
  const out: ThemeResult = { applied: {}, refused: [] };
  if (typeof vars !== "object" || vars === null || Array.isArray(vars)) return out;
  for (const [name, value] of Object.entries(vars as Record<string, unknown>)) {
    if (!THEME_VAR_NAME.test(name)) {
      out.refused.push({ name, reason: "only --lets-* custom properties can be set" });
    } else if (typeof value !== "string" || THEME_FORBIDDEN.test(value) || !THEME_VAR_VALUE.test(value)) {
      out.refused.push({ name, reason: "the value is not a plain CSS value" });
    } else {
      out.applied[name] = value;
    }
  }
  return out;
}

/** The eight built-in component types every shell provides (seed §3.4). */
export const BUILTIN_COMPONENTS: ReadonlySet<string> = new Set(["note", "options", "slider", "toggle", "form", "image-drop", "progress", "code"]);

export interface ComponentView {
  type: string;
  props: Record<string, unknown>;
  /** Set when the requested type is unknown and the shell shows a note. */
  fallbackFrom?: string;
}

/** Unknown component types fall back to a note showing the raw props. */
export function componentView(type: unknown, props: unknown): ComponentView {
  const p = typeof props === "object" && props !== null && !Array.isArray(props) ? (props as Record<string, unknown>) : {};
  const t = typeof type === "string" ? type : "";
  if (BUILTIN_COMPONENTS.has(t)) return { type: t, props: p };
  return { type: "note", props: p, fallbackFrom: t || "(none)" };
}

/** Reconnect delays: 250 ms doubling up to 5 s, with a little jitter. */
export function backoff(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5000, 250 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * May the unique emit this type through the SDK (spec §3)? Its declared
 * domains, entity.summon, and nothing else of a reserved domain. The host
 * checks again; this gives the unique a quick, clear error.
 */
export function uniqueMayEmit(type: string, domains: readonly string[], reserved: ReadonlySet<string>): boolean {
  if (type === "entity.summon") return true;
  const dot = type.indexOf(".");
  const domain = dot < 0 ? type : type.slice(0, dot);
  if (reserved.has(domain)) return false;
  return domains.length === 0 || domains.includes(domain);
}

/**
 * One turn of the conversation as the docked chat keeps it (for the
 * unique that asked for the docked chat: its export, snapshot and load).
 * "choice" turns are the human's picks in Claude's components.
 */
export interface ChatEntry {
  role: "human" | "claude";
  text: string;
  at: string;
  kind?: "choice";
  attachments?: { path: string; mime: string }[];
}

const ENTRIES_MAX = 200;
const ENTRY_TEXT_MAX = 20000;

/** Keeps the well-formed turns of a saved conversation (newest 200). */
export function cleanEntries(raw: unknown): ChatEntry[] {
  if (!Array.isArray(raw)) return [];
  const out: ChatEntry[] = [];
  for (const v of raw) {
    if (!v || typeof v !== "object") continue;
    const o = v as Record<string, unknown>;
    if ((o.role !== "human" && o.role !== "claude") || typeof o.text !== "string") continue;
    const e: ChatEntry = { role: o.role, text: o.text.slice(0, ENTRY_TEXT_MAX), at: typeof o.at === "string" ? o.at.slice(0, 40) : "" };
    if (o.kind === "choice" && o.role === "human") e.kind = "choice";
    if (Array.isArray(o.attachments)) {
      const files = o.attachments
        .filter((a): a is { path: string; mime: string } => !!a && typeof a === "object" && typeof (a as { path?: unknown }).path === "string")
        .map((a) => ({ path: a.path.slice(0, 1024), mime: typeof a.mime === "string" ? a.mime.slice(0, 64) : "" }))
        .slice(0, 10);
      if (files.length) e.attachments = files;
    }
    if (!e.text && !e.attachments) continue;
    out.push(e);
  }
  return out.slice(-ENTRIES_MAX);
}

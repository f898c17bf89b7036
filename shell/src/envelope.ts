// LIP 1 envelope helpers for the shell: building envelopes, checking the ones
// a unique hands to the shell (spec lip-1 §2 and §3), and splitting batches.

export const LIP_VERSION = 1;
export const MAX_ENVELOPE_BYTES = 256 * 1024;
export const MAX_BATCH_ENVELOPES = 256;
export const MAX_BATCH_BYTES = 1024 * 1024;
export const MAX_TTL_MS = 86_400_000;

const TYPE_RE = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;
const ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Domains no unique may declare (spec §3). */
export const RESERVED_DOMAINS: ReadonlySet<string> = new Set([
  "lip", "session", "entity", "chat", "component", "media", "ui", "shell", "host", "clipboard", "window",
]);

export type Direction = "up" | "down";

export interface Envelope {
  lip: number;
  id: string;
  ts?: number;
  dir?: Direction;
  from?: string;
  type: string;
  data: Record<string, unknown>;
  re?: string;
  ttl?: number;
  win?: string;
  seq?: number;
  [extra: string]: unknown;
}

export type ErrorCode = "bad_envelope" | "unsupported_version" | "too_large";

export type Checked =
  | { ok: true; envelope: Envelope }
  | { ok: false; code: ErrorCode; message: string };

/** The domain of a type: everything before the first dot. */
export function domainOf(type: string): string {
  const dot = type.indexOf(".");
  return dot < 0 ? type : type.slice(0, dot);
}

export function isValidType(type: unknown): type is string {
  return typeof type === "string" && type.length <= 96 && TYPE_RE.test(type);
}

export function isValidId(id: unknown): id is string {
  return typeof id === "string" && ID_RE.test(id);
}

export function isReserved(type: string): boolean {
  return RESERVED_DOMAINS.has(domainOf(type));
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID (48-bit time + 80 random bits, Crockford base32). */
export function ulid(now: number = Date.now(), random: (n: number) => Uint8Array = randomBytes): string {
  let t = Math.max(0, Math.floor(now));
  let time = "";
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random(10);
  let bits = 0;
  let acc = 0;
  let rand = "";
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return time + rand;
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  globalThis.crypto.getRandomValues(out);
  return out;
}

/** Builds an up-envelope; the host re-stamps ts, from, win and seq. */
export function makeEnvelope(
  type: string,
  data: Record<string, unknown> = {},
  opts: { prefix?: string; re?: string; ttl?: number; now?: number } = {},
): Envelope {
  if (!isValidType(type)) {
    throw new TypeError(`"${type}" is not a LIP type: use lowercase words joined by dots, like "graph.node.select"`);
  }
  const now = opts.now ?? Date.now();
  const env: Envelope = { lip: LIP_VERSION, id: `${opts.prefix ?? "ev"}_${ulid(now)}`, ts: now, dir: "up", type, data };
  if (opts.re !== undefined) env.re = opts.re;
  if (opts.ttl !== undefined) env.ttl = opts.ttl;
  return env;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function bad(message: string): Checked {
  return { ok: false, code: "bad_envelope", message };
}

/** Checks one envelope against spec §2. Absent data becomes {}. */
export function checkEnvelope(value: unknown): Checked {
  if (!isPlainObject(value)) return bad("an envelope must be a JSON object");
  if (value.lip !== LIP_VERSION) {
    if (typeof value.lip === "number" && Number.isInteger(value.lip)) {
      return { ok: false, code: "unsupported_version", message: `lip ${value.lip} is not supported; this shell speaks lip ${LIP_VERSION}` };
    }
    return bad(`"lip" must be the integer ${LIP_VERSION}`);
  }
  if (!isValidId(value.id)) return bad(`"id" must be 1-64 characters of letters, digits, _ . : or -`);
  if (!isValidType(value.type)) return bad(`"type" must look like "domain.name" in lowercase (at most 96 characters)`);
  if (value.dir !== undefined && value.dir !== "up" && value.dir !== "down") return bad(`"dir" must be "up" or "down"`);
  if (value.ts !== undefined && !(typeof value.ts === "number" && Number.isInteger(value.ts))) return bad(`"ts" must be whole milliseconds`);
  if (value.data !== undefined && !isPlainObject(value.data)) return bad(`"data" must be a JSON object`);
  if (value.re !== undefined && !isValidId(value.re)) return bad(`"re" must be an envelope id`);
  if (value.ttl !== undefined) {
    const ttl = value.ttl;
    if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_MS) {
      return bad(`"ttl" must be whole milliseconds from 1 to ${MAX_TTL_MS}`);
    }
  }
  const envelope = { ...value, data: (value.data as Record<string, unknown>) ?? {} } as Envelope;
  if (encodedSize(envelope) > MAX_ENVELOPE_BYTES) {
    return { ok: false, code: "too_large", message: `an envelope may be at most ${MAX_ENVELOPE_BYTES} bytes` };
  }
  return { ok: true, envelope };
}

export function encodedSize(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

export interface BatchResult {
  accepted: Envelope[];
  rejected: { index: number; code: ErrorCode; message: string }[];
}

/**
 * Accepts a single envelope or a batch (array). An invalid element is
 * rejected alone; the valid ones go through (spec §2).
 */
export function splitBatch(value: unknown): BatchResult {
  const result: BatchResult = { accepted: [], rejected: [] };
  if (!Array.isArray(value)) {
    const c = checkEnvelope(value);
    if (c.ok) result.accepted.push(c.envelope);
    else result.rejected.push({ index: 0, code: c.code, message: c.message });
    return result;
  }
  if (value.length > MAX_BATCH_ENVELOPES) {
    result.rejected.push({ index: -1, code: "too_large", message: `a batch may hold at most ${MAX_BATCH_ENVELOPES} envelopes` });
    return result;
  }
  if (encodedSize(value) > MAX_BATCH_BYTES) {
    result.rejected.push({ index: -1, code: "too_large", message: `a batch may be at most ${MAX_BATCH_BYTES} bytes` });
    return result;
  }
  value.forEach((item, index) => {
    const c = checkEnvelope(item);
    if (c.ok) result.accepted.push(c.envelope);
    else result.rejected.push({ index, code: c.code, message: c.message });
  });
  return result;
}

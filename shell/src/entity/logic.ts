// Pure logic of the companion (entity, seed §3.2, spec lip-1 §4.3): the
// mood table, easing and clamping, persona traits, suggestion menus,
// profile aggregation and the gestures that trigger self-played reactions
// and secret moves. No DOM and no clock here: time is passed in, so the
// Node tests are deterministic. companion.ts draws what this decides.

export const MOODS = ["idle", "happy", "curious", "thinking", "busy", "proud", "sleepy", "alert"] as const;
export type Mood = (typeof MOODS)[number];

export const REACTIONS = [
  "dizzy", "whoa", "startled", "gasp", "oops", "wink", "cheer", "blush", "boop",
  "yawn", "peek", "nod", "shake-no", "wave", "spin", "dance", "disco", "sparkle",
] as const;
export type Reaction = (typeof REACTIONS)[number];

export function isMood(v: unknown): v is Mood {
  return typeof v === "string" && (MOODS as readonly string[]).includes(v);
}

export function isReaction(v: unknown): v is Reaction {
  return typeof v === "string" && (REACTIONS as readonly string[]).includes(v);
}

/** How a mood looks: every field is drawn by companion.ts. */
export interface MoodLook {
  /** Body fill (a CSS colour). */
  body: string;
  /** Eye shape: round dots, wide open, happy arcs, closed lines, squint, a look up and aside. */
  eyes: "round" | "wide" | "arcs" | "closed" | "squint" | "up";
  /** SVG path of the mouth in the 64×64 view box. */
  mouth: string;
  /** SVG path of the brows, "" for none. */
  brows: string;
  /** A small sign above the head. */
  sign: "" | "?" | "…" | "z" | "!" | "★" | "⚙";
  /** The idle motion the body plays in this mood. */
  motion: "breathe" | "bounce" | "tilt" | "sway" | "jitter" | "rise" | "droop" | "perk";
}

const MOOD_TABLE: Readonly<Record<Mood, MoodLook>> = {
  idle: { body: "#7c8cf8", eyes: "round", mouth: "M27 42 Q32 45 37 42", brows: "", sign: "", motion: "breathe" },
  happy: { body: "#f7a541", eyes: "arcs", mouth: "M24 40 Q32 50 40 40 Z", brows: "", sign: "", motion: "bounce" },
  curious: { body: "#4fc3b8", eyes: "wide", mouth: "M30 43 Q32 41 34 43 Q32 46 30 43 Z", brows: "M22 25 L28 22 M36 24 L42 24", sign: "?", motion: "tilt" },
  thinking: { body: "#9b8cf0", eyes: "up", mouth: "M28 43 L37 42", brows: "M22 24 L28 24 M36 22 L42 25", sign: "…", motion: "sway" },
  busy: { body: "#5aa9e6", eyes: "squint", mouth: "M27 43 L37 43", brows: "M22 23 L28 25 M36 25 L42 23", sign: "⚙", motion: "jitter" },
  proud: { body: "#e4c04a", eyes: "arcs", mouth: "M26 41 Q32 46 38 41", brows: "M22 23 L28 22 M36 22 L42 23", sign: "★", motion: "rise" },
  sleepy: { body: "#8f96b5", eyes: "closed", mouth: "M30 43 Q32 45 34 43", brows: "", sign: "z", motion: "droop" },
  alert: { body: "#ef6b5b", eyes: "wide", mouth: "M29 41 Q32 38 35 41 Q32 47 29 41 Z", brows: "M22 21 L28 23 M36 23 L42 21", sign: "!", motion: "perk" },
};

/** The look of a mood; unknown moods look idle. */
export function moodLook(mood: unknown): MoodLook {
  return MOOD_TABLE[isMood(mood) ? mood : "idle"];
}

/** How long a reaction plays by default, in ms. */
export function reactionMs(name: Reaction, requested?: unknown): number {
  const base: Partial<Record<Reaction, number>> = { dizzy: 1400, yawn: 1600, disco: 2400, dance: 1800, spin: 900, wave: 1200, sparkle: 1200, "shake-no": 900 };
  const want = typeof requested === "number" && Number.isFinite(requested) ? requested : (base[name] ?? 800);
  return Math.round(Math.min(5000, Math.max(300, want)));
}

// ---------------------------------------------------------------- motion

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  w: number;
  h: number;
}

/** Smooth start and stop. */
export function easeInOutCubic(t: number): number {
  const c = Math.min(1, Math.max(0, t));
  return c < 0.5 ? 4 * c * c * c : 1 - (-2 * c + 2) ** 3 / 2;
}

/**
 * The duration of a move (spec §4.3: 250–600 ms, distance based); a
 * faster persona (speed > 1) takes less time, never below 250 ms.
 */
export function moveDuration(from: Point, to: Point, speed = 1): number {
  const d = Math.hypot(to.x - from.x, to.y - from.y);
  const ms = (250 + d * 0.6) / Math.max(0.25, speed);
  return Math.round(Math.min(600, Math.max(250, ms)));
}

/** Keeps the companion's top-left p so its whole box stays in the viewport. */
export function clampToViewport(p: Point, box: Size, view: Size, margin = 4): Point {
  const maxX = Math.max(margin, view.w - box.w - margin);
  const maxY = Math.max(margin, view.h - box.h - margin);
  const x = Number.isFinite(p.x) ? p.x : margin;
  const y = Number.isFinite(p.y) ? p.y : margin;
  return { x: Math.min(maxX, Math.max(margin, x)), y: Math.min(maxY, Math.max(margin, y)) };
}

/** One eased move between two points. */
export class Glide {
  readonly duration: number;
  constructor(readonly from: Point, readonly to: Point, readonly start: number, speed = 1) {
    this.duration = moveDuration(from, to, speed);
  }

  /** Where the companion is at now; every frame is between from and to. */
  at(now: number): Point {
    const k = easeInOutCubic((now - this.start) / this.duration);
    return { x: this.from.x + (this.to.x - this.from.x) * k, y: this.from.y + (this.to.y - this.from.y) * k };
  }

  done(now: number): boolean {
    return now - this.start >= this.duration;
  }
}

/**
 * Where the companion should rest while following the cursor: `distance`
 * px from the cursor, on the side where it already is (so it trails
 * instead of crossing the pointer's path), never covering the cursor.
 * Returns null while it is already close enough (so the human can reach
 * it: moving toward the companion never pushes it away) and when the
 * pointer is outside the view.
 */
export function followPoint(cursor: Point, companionCenter: Point, distance: number, box: Size, view: Size): Point | null {
  // A pointer outside the view has left the window: nothing to follow.
  if (!(cursor.x >= 0 && cursor.y >= 0 && cursor.x <= view.w && cursor.y <= view.h)) return null;
  const dx = companionCenter.x - cursor.x;
  const dy = companionCenter.y - cursor.y;
  const gap = Math.hypot(dx, dy);
  if (gap <= distance * 2.2) return null;
  const ux = gap > 0 ? dx / gap : 1;
  const uy = gap > 0 ? dy / gap : 1;
  const reach = distance + Math.max(box.w, box.h) / 2;
  const center = { x: cursor.x + ux * reach, y: cursor.y + uy * reach };
  return clampToViewport({ x: center.x - box.w / 2, y: center.y - box.h / 2 }, box, view);
}

/**
 * Where the companion goes to stand beside a point (entity.move to the
 * cursor, a summon): `distance` from it on a diagonal, below-right when
 * there is room, else below-left, above-right, above-left. Only when no
 * diagonal fits is the place clamped into the view (and then nearer).
 */
export function besidePoint(p: Point, distance: number, box: Size, view: Size): Point {
  const reach = (distance + Math.max(box.w, box.h) / 2) / Math.SQRT2;
  for (const [sx, sy] of [[1, 1], [-1, 1], [1, -1], [-1, -1]] as const) {
    const at = { x: p.x + sx * reach - box.w / 2, y: p.y + sy * reach - box.h / 2 };
    const clamped = clampToViewport(at, box, view);
    if (Math.abs(clamped.x - at.x) < 0.5 && Math.abs(clamped.y - at.y) < 0.5) return at;
  }
  return clampToViewport({ x: p.x + reach - box.w / 2, y: p.y + reach - box.h / 2 }, box, view);
}

/** True when a point lies inside the companion's box grown by pad. */
export function covers(topLeft: Point, box: Size, p: Point, pad = 0): boolean {
  return p.x >= topLeft.x - pad && p.x <= topLeft.x + box.w + pad && p.y >= topLeft.y - pad && p.y <= topLeft.y + box.h + pad;
}

// --------------------------------------------------------------- persona

export interface Persona {
  name: string;
  /** Multiplier of movement speed, 0.5–2. */
  speed: number;
  /** How far it keeps from the cursor, px (24–240). */
  distance: number;
}

export const DEFAULT_PERSONA: Persona = { name: "Pip", speed: 1, distance: 72 };

/** Applies entity.persona {name, traits}: speed and distance as numbers or words. */
export function parsePersona(data: Record<string, unknown>, current: Persona = DEFAULT_PERSONA): Persona {
  const traits = typeof data.traits === "object" && data.traits !== null ? (data.traits as Record<string, unknown>) : {};
  const name = typeof data.name === "string" && data.name.trim() ? data.name.trim().slice(0, 40) : current.name;
  const words: Record<string, number> = { slow: 0.6, calm: 0.75, normal: 1, quick: 1.4, fast: 1.6, zippy: 2 };
  const far: Record<string, number> = { close: 36, near: 48, normal: 72, far: 140, distant: 200 };
  let speed = current.speed;
  if (typeof traits.speed === "number" && Number.isFinite(traits.speed)) speed = traits.speed;
  else if (typeof traits.speed === "string" && traits.speed in words) speed = words[traits.speed];
  let distance = current.distance;
  if (typeof traits.distance === "number" && Number.isFinite(traits.distance)) distance = traits.distance;
  else if (typeof traits.distance === "string" && traits.distance in far) distance = far[traits.distance];
  return { name, speed: Math.min(2, Math.max(0.5, speed)), distance: Math.round(Math.min(240, Math.max(24, distance))) };
}

// ----------------------------------------------------------- suggestions

export interface Suggestion {
  id: string;
  label: string;
  hint?: string;
}

/** Shown at once when the companion is clicked, before Claude answers. */
export const QUICK_SUGGESTIONS: readonly Suggestion[] = [
  { id: "quick.explain", label: "Explain what I'm looking at" },
  { id: "quick.next", label: "What should I do next?" },
  { id: "quick.undo", label: "Undo the last change", hint: "asks Claude to undo" },
];

export const MAX_SUGGESTIONS = 12;

/** Reads entity.suggest items, keeping only well-formed ones. */
export function suggestionsOf(items: unknown): Suggestion[] {
  if (!Array.isArray(items)) return [];
  const out: Suggestion[] = [];
  for (const it of items) {
    if (typeof it !== "object" || it === null) continue;
    const { id, label, hint } = it as Record<string, unknown>;
    if (typeof id !== "string" || !id || typeof label !== "string" || !label) continue;
    out.push(typeof hint === "string" && hint ? { id, label: label.slice(0, 120), hint: hint.slice(0, 200) } : { id, label: label.slice(0, 120) });
  }
  return out;
}

/**
 * The menu after entity.suggest: replace drops what was there; merge
 * updates items with the same id in place and appends the new ones.
 */
export function mergeSuggestions(current: readonly Suggestion[], incoming: readonly Suggestion[], replace: boolean): Suggestion[] {
  const base = replace ? [] : current.map((s) => ({ ...s }));
  for (const s of incoming) {
    const i = base.findIndex((b) => b.id === s.id);
    if (i >= 0) base[i] = { ...s };
    else base.push({ ...s });
  }
  return base.slice(-MAX_SUGGESTIONS);
}

/** The click menu: Claude's items first, then quick ones not already there. */
export function menuItems(claude: readonly Suggestion[]): Suggestion[] {
  const ids = new Set(claude.map((s) => s.id));
  return [...claude, ...QUICK_SUGGESTIONS.filter((q) => !ids.has(q.id))];
}

// --------------------------------------------------------------- profile

export interface ProfileRegion {
  row: number;
  col: number;
  ms: number;
}

export interface Profile {
  pace: number;
  clickRate: number;
  dwell: number;
  regions: ProfileRegion[];
  idleMs: number;
  sessionMs: number;
  keys: number;
}

export const PROFILE_EVERY_MS = 60_000;
/** Pointer quiet for this long counts as idle time. */
export const IDLE_AFTER_MS = 5_000;

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Aggregates pointer and key activity into entity.profile: counts,
 * medians and a 4×4 grid of time, never the raw moves. Samples are kept
 * bounded (a ring of recent speeds and gaps).
 */
export class ProfileAggregator {
  private speeds: number[] = [];
  private gaps: number[] = [];
  private cells = new Array<number>(16).fill(0);
  private clicks = 0;
  private keyCount = 0;
  private idle = 0;
  private last: { x: number; y: number; t: number; cell: number } | null = null;
  private lastActivity: number;
  private lastEmit: number;
  private dirty = false;

  constructor(private readonly started: number, private readonly keep = 512) {
    this.lastActivity = started;
    this.lastEmit = started;
  }

  private activity(t: number): void {
    const quiet = t - this.lastActivity;
    if (quiet > IDLE_AFTER_MS) this.idle += quiet;
    this.lastActivity = Math.max(this.lastActivity, t);
    this.dirty = true;
  }

  private push(list: number[], v: number): void {
    list.push(v);
    if (list.length > this.keep) list.shift();
  }

  /** A pointer position in a view of size view at time t (ms). */
  move(x: number, y: number, t: number, view: Size): void {
    const col = Math.min(3, Math.max(0, Math.floor((x / Math.max(1, view.w)) * 4)));
    const row = Math.min(3, Math.max(0, Math.floor((y / Math.max(1, view.h)) * 4)));
    const cell = row * 4 + col;
    if (this.last) {
      const dt = t - this.last.t;
      if (dt > 0) {
        // Time in a cell is the time until the pointer left it, capped so a
        // pointer left alone does not count as attention.
        this.cells[this.last.cell] += Math.min(dt, IDLE_AFTER_MS);
        this.push(this.gaps, dt);
        this.push(this.speeds, (Math.hypot(x - this.last.x, y - this.last.y) / dt) * 1000);
      }
    }
    this.activity(t);
    this.last = { x, y, t, cell };
  }

  click(t: number): void {
    this.clicks++;
    this.activity(t);
  }

  key(t: number): void {
    this.keyCount++;
    this.activity(t);
  }

  /** The aggregate at now. */
  snapshot(now: number): Profile {
    const sessionMs = Math.max(0, now - this.started);
    const minutes = Math.max(sessionMs, 1000) / 60_000;
    const quiet = now - this.lastActivity;
    const regions = this.cells
      .map((ms, i) => ({ row: Math.floor(i / 4), col: i % 4, ms: Math.round(ms) }))
      .filter((r) => r.ms > 0)
      .sort((a, b) => b.ms - a.ms || a.row - b.row || a.col - b.col)
      .slice(0, 5);
    return {
      pace: Math.round(median(this.speeds)),
      clickRate: Math.round((this.clicks / minutes) * 10) / 10,
      dwell: Math.round(median(this.gaps)),
      regions,
      idleMs: Math.round(this.idle + (quiet > IDLE_AFTER_MS ? quiet : 0)),
      sessionMs: Math.round(sessionMs),
      keys: Math.round((this.keyCount / minutes) * 10) / 10,
    };
  }

  /** True when a periodic profile is due: something happened and 60 s passed. */
  due(now: number): boolean {
    return this.dirty && now - this.lastEmit >= PROFILE_EVERY_MS;
  }

  /** Takes the profile to send now (periodic or on close) and restarts the period. */
  take(now: number): Profile {
    this.lastEmit = now;
    this.dirty = false;
    return this.snapshot(now);
  }
}

// -------------------------------------------------------------- gestures

/** What the gesture detector asks the companion to do. */
export type GestureOutcome =
  | { kind: "react"; name: Reaction }
  | { kind: "secret"; name: SecretName }
  | { kind: "mood"; mood: Mood };

export const SECRETS = ["spin", "disco", "wave", "konami"] as const;
export type SecretName = (typeof SECRETS)[number];

export const KONAMI = ["ArrowUp", "ArrowUp", "ArrowDown", "ArrowDown", "ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowRight", "b", "a"];
/** Long idle makes the companion yawn and get sleepy. */
export const SLEEPY_AFTER_MS = 90_000;

interface Sample {
  x: number;
  y: number;
  t: number;
}

function angleOf(a: Sample, b: Sample): number {
  return Math.atan2(b.y - a.y, b.x - a.x);
}

function turn(a: number, b: number): number {
  let d = b - a;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

/** Sum of the turning of a path (radians, signed). */
function totalTurn(samples: readonly Sample[]): number {
  let sum = 0;
  for (let i = 2; i < samples.length; i++) {
    const a = samples[i - 2];
    const b = samples[i - 1];
    const c = samples[i];
    if (Math.hypot(b.x - a.x, b.y - a.y) < 1 || Math.hypot(c.x - b.x, c.y - b.y) < 1) continue;
    sum += turn(angleOf(a, b), angleOf(b, c));
  }
  return sum;
}

/**
 * Reads pointer and key behaviour (time passed in) and decides the
 * reactions the shell plays by itself (spec §4.3: fast circles → dizzy,
 * fling toward the companion → startled, long idle → yawn and sleepy,
 * hover → peek, double-click → boop) and the secret moves (spin, disco,
 * wave, konami), each secret reported once per window.
 */
export class GestureDetector {
  private trail: Sample[] = [];
  private drag: Sample[] = [];
  private over: Sample[] = [];
  private typed = "";
  private keys: string[] = [];
  private found = new Set<SecretName>();
  private cooldown = new Map<string, number>();
  private lastInput: number;
  private asleep = false;

  constructor(now: number) {
    this.lastInput = now;
  }

  private ready(name: string, now: number, gap: number): boolean {
    const until = this.cooldown.get(name) ?? -Infinity;
    if (now < until) return false;
    this.cooldown.set(name, now + gap);
    return true;
  }

  private secret(name: SecretName, out: GestureOutcome[]): void {
    if (this.found.has(name)) return;
    this.found.add(name);
    out.push({ kind: "secret", name });
  }

  private wake(now: number, out: GestureOutcome[]): void {
    this.lastInput = now;
    if (this.asleep) {
      this.asleep = false;
      out.push({ kind: "mood", mood: "idle" });
    }
  }

  /** The secrets found so far (each reported once). */
  secrets(): SecretName[] {
    return [...this.found];
  }

  /**
   * A pointer sample. companion is the companion's centre and radius;
   * overCompanion says whether the pointer is on it.
   */
  pointer(p: Sample, companion: { x: number; y: number; r: number }, overCompanion: boolean): GestureOutcome[] {
    const out: GestureOutcome[] = [];
    this.wake(p.t, out);
    this.trail.push(p);
    while (this.trail.length > 2 && (p.t - this.trail[0].t > 1200 || this.trail.length > 120)) this.trail.shift();

    // Fast circles: two full turns within 1.2 s at speed.
    const span = p.t - this.trail[0].t;
    if (this.trail.length >= 12 && span > 0) {
      let length = 0;
      for (let i = 1; i < this.trail.length; i++) length += Math.hypot(this.trail[i].x - this.trail[i - 1].x, this.trail[i].y - this.trail[i - 1].y);
      const speed = (length / span) * 1000;
      if (Math.abs(totalTurn(this.trail)) >= 4 * Math.PI && speed > 600 && this.ready("dizzy", p.t, 4000)) {
        out.push({ kind: "react", name: "dizzy" });
        this.trail = [p];
      }
    }

    // A fling toward the companion: fast, aimed at it, and close.
    if (this.trail.length >= 2 && !overCompanion) {
      const prev = this.trail[Math.max(0, this.trail.length - 4)];
      const dt = p.t - prev.t;
      if (dt > 0) {
        const vx = (p.x - prev.x) / dt;
        const vy = (p.y - prev.y) / dt;
        const v = Math.hypot(vx, vy) * 1000;
        const tx = companion.x - p.x;
        const ty = companion.y - p.y;
        const dist = Math.hypot(tx, ty);
        const aim = dist > 0 && v > 0 ? (vx * tx + vy * ty) / ((v / 1000) * dist) : 0;
        if (v > 2000 && aim > 0.9 && dist < companion.r + 160 && this.ready("startled", p.t, 3000)) {
          out.push({ kind: "react", name: "startled" });
        }
      }
    }

    // Wave: shaking the pointer left-right over the companion three times
    // (six changes of direction of at least 6 px) within 1.6 s.
    if (overCompanion) {
      this.over.push(p);
      while (this.over.length > 1 && p.t - this.over[0].t > 1600) this.over.shift();
      if (countRuns(this.over, 6) >= 6) {
        this.secret("wave", out);
        this.over = [];
      }
    } else this.over = [];
    return out;
  }

  /** The pointer entered the companion. */
  hover(now: number): GestureOutcome[] {
    const out: GestureOutcome[] = [];
    this.wake(now, out);
    if (this.ready("peek", now, 5000)) out.push({ kind: "react", name: "peek" });
    return out;
  }

  doubleClick(now: number): GestureOutcome[] {
    const out: GestureOutcome[] = [];
    this.wake(now, out);
    out.push({ kind: "react", name: "boop" });
    return out;
  }

  dragStart(p: Sample): void {
    this.drag = [p];
  }

  /** A drag sample of the companion itself: a full circle is the spin secret. */
  dragMove(p: Sample): GestureOutcome[] {
    const out: GestureOutcome[] = [];
    this.wake(p.t, out);
    this.drag.push(p);
    if (this.drag.length > 400) this.drag.shift();
    if (Math.abs(totalTurn(this.drag)) >= 2 * Math.PI) {
      this.secret("spin", out);
      this.drag = [p];
    }
    return out;
  }

  dragEnd(): void {
    this.drag = [];
  }

  /** A key press; companionFocused says whether the companion has focus. */
  key(key: string, now: number, companionFocused: boolean): GestureOutcome[] {
    const out: GestureOutcome[] = [];
    this.wake(now, out);
    this.keys.push(key.length === 1 ? key.toLowerCase() : key);
    if (this.keys.length > KONAMI.length) this.keys.shift();
    if (this.keys.length === KONAMI.length && this.keys.every((k, i) => k === KONAMI[i])) this.secret("konami", out);
    if (companionFocused && key.length === 1) {
      this.typed = (this.typed + key.toLowerCase()).slice(-5);
      if (this.typed === "party") this.secret("disco", out);
    } else if (!companionFocused) this.typed = "";
    return out;
  }

  /** Called now and then: long idle makes the companion yawn and sleep. */
  tick(now: number): GestureOutcome[] {
    if (this.asleep || now - this.lastInput < SLEEPY_AFTER_MS) return [];
    this.asleep = true;
    return [{ kind: "react", name: "yawn" }, { kind: "mood", mood: "sleepy" }];
  }
}

/**
 * Horizontal runs of a shake: stretches in one direction of at least
 * minRun px. Left-right three times is six runs.
 */
function countRuns(samples: readonly Sample[], minRun: number): number {
  let dir = 0;
  let run = 0;
  let count = 0;
  for (let i = 1; i < samples.length; i++) {
    const dx = samples[i].x - samples[i - 1].x;
    if (dx === 0) continue;
    const d = Math.sign(dx);
    if (d !== dir) {
      if (dir !== 0 && run >= minRun) count++;
      dir = d;
      run = 0;
    }
    run += Math.abs(dx);
  }
  if (dir !== 0 && run >= minRun) count++;
  return count;
}

/** The menu's next focus for a key (arrow keys, Home, End) or -1 to keep. */
export function menuFocus(key: string, index: number, count: number): number {
  if (count <= 0) return -1;
  switch (key) {
    case "ArrowDown":
      return (index + 1) % count;
    case "ArrowUp":
      return (index - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return -1;
  }
}

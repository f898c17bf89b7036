// Credentials and pairing (web-surface-protocol-1.md §6, §7.1): which
// credential to send, how to read a typed PIN, and what to tell the person
// when the server says "forbidden". The server gives one error for every
// refused credential, so the app keeps its own count of wrong PINs to
// explain a lock-out the way the server applies it (5 failures within 60 s
// lock this device out for the rest of that minute).

export const ADMIN_KEY = "pad-lattice-admin-token";
export const SESSION_KEY = "pad-lattice-session-token";
export const FAILURES_KEY = "lets-pad-pin-failures";

export const LOCKOUT_LIMIT = 5;
export const LOCKOUT_WINDOW_MS = 60_000;
export const PAIRING_TTL_S = 300;

/** Which kind of credential a connection attempt used. */
export type CredentialKind = "admin" | "secret" | "pin" | "session" | "none";

/**
 * Which view of the page an administrator sees: the virtual pad, or
 * "Pair a phone" (the tray's "Pair a phone…" opens #admin=…&view=pair).
 */
export type PageView = "pad" | "pair";

export interface Fragment {
  admin: string | null;
  pair: string | null;
  view: PageView;
}

/** Reads #admin=…, #pair=… and view=pair from location.hash. */
export function parseFragment(hash: string): Fragment {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const clean = (v: string | null) => (v && v.length <= 256 && !/\s/.test(v) ? v : null);
  return {
    admin: clean(params.get("admin")),
    pair: clean(params.get("pair")),
    view: params.get("view") === "pair" ? "pair" : "pad",
  };
}

/** The address-bar fragment that keeps a view across reloads (no credential). */
export function viewFragment(view: PageView): string {
  return view === "pair" ? "#view=pair" : "";
}

export interface Stored {
  admin: string | null;
  session: string | null;
}

/**
 * The credential to send, in the priority of §7.1: a fresh #admin= or
 * #pair= from the address, then a stored admin token, then a stored
 * session token. A typed PIN (given) beats them all.
 */
export function chooseCredential(
  frag: Pick<Fragment, "admin" | "pair">,
  stored: Stored,
  pin: string | null,
): { credential: string | null; kind: CredentialKind } {
  if (pin) return { credential: pin, kind: "pin" };
  if (frag.admin) return { credential: frag.admin, kind: "admin" };
  if (frag.pair) return { credential: frag.pair, kind: "secret" };
  if (stored.admin) return { credential: stored.admin, kind: "admin" };
  if (stored.session) return { credential: stored.session, kind: "session" };
  return { credential: null, kind: "none" };
}

/** The six digits of a typed PIN (spaces and dashes removed), or null. */
export function normalizePin(typed: string): string | null {
  const digits = typed.replace(/[\s\-–·.]/g, "");
  return /^[0-9]{6}$/.test(digits) ? digits : null;
}

/** Only the digits of what was typed, at most six (for live input). */
export function pinDigits(typed: string): string {
  return typed.replace(/[^0-9]/g, "").slice(0, 6);
}

/** Wrong-PIN bookkeeping that mirrors the server's per-device lock-out. */
export class Failures {
  private times: number[];

  constructor(times: readonly number[] = []) {
    this.times = times.filter((t) => Number.isFinite(t)).slice(-LOCKOUT_LIMIT * 4);
  }

  /** Failures that still count at `now` (younger than the window). */
  recent(now: number): number[] {
    return this.times.filter((t) => now - t < LOCKOUT_WINDOW_MS && t <= now);
  }

  /** Milliseconds until PINs are accepted again; 0 when not locked. */
  lockedFor(now: number): number {
    const r = this.recent(now);
    if (r.length < LOCKOUT_LIMIT) return 0;
    // Locked until the oldest of the last five failures leaves the window.
    const oldest = r.slice(-LOCKOUT_LIMIT)[0];
    return Math.max(0, oldest + LOCKOUT_WINDOW_MS - now);
  }

  /** How many more wrong PINs this device may try before the pause. */
  triesLeft(now: number): number {
    return Math.max(0, LOCKOUT_LIMIT - this.recent(now).length);
  }

  /** Records a refused PIN (not while locked: the server ignores those). */
  record(now: number): void {
    if (this.lockedFor(now) > 0) return;
    this.times = [...this.recent(now), now];
  }

  clear(): void {
    this.times = [];
  }

  toJSON(): number[] {
    return [...this.times];
  }
}

export interface Explanation {
  /** Short headline. */
  title: string;
  /** What happened and what to do. */
  detail: string;
  /** Milliseconds the PIN form stays locked (0 = usable). */
  lockedMs: number;
}

/**
 * What to tell the person after a refused credential of `kind`. For a PIN
 * the refusal has already been recorded in `failures`.
 */
export function explainForbidden(kind: CredentialKind, failures: Failures, now: number): Explanation {
  const locked = failures.lockedFor(now);
  if (locked > 0) {
    return {
      title: "Too many wrong PINs",
      detail: `For your safety this phone has to wait before trying again. Try again in ${Math.ceil(locked / 1000)} s.`,
      lockedMs: locked,
    };
  }
  switch (kind) {
    case "pin": {
      const left = failures.triesLeft(now);
      return {
        title: "That PIN didn't work",
        detail:
          "Check the 6 digits on your computer. A PIN works once, for 5 minutes. " +
          `${left} ${left === 1 ? "try" : "tries"} left before a one-minute pause.`,
        lockedMs: 0,
      };
    }
    case "secret":
      return {
        title: "This pairing link has expired",
        detail:
          "A pairing QR code works once and only for 5 minutes. Make a new one on your computer and scan it, or type the PIN shown there.",
        lockedMs: 0,
      };
    case "session":
      return {
        title: "This phone needs to pair again",
        detail: "The computer no longer knows this phone (it was disconnected, or Lets restarted). Enter the PIN shown on your computer.",
        lockedMs: 0,
      };
    case "admin":
      return {
        title: "This admin link is out of date",
        detail:
          "Lets makes a new link to the pad every time it starts. Open the pad again from the Lets menu.",
        lockedMs: 0,
      };
    default:
      return {
        title: "Pair this phone",
        detail: "Enter the 6-digit PIN shown on your computer.",
        lockedMs: 0,
      };
  }
}

/**
 * True when the page was opened through the loopback names the server
 * accepts (§3.2): there only the admin link works, never a PIN.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h === "127.0.0.1";
}

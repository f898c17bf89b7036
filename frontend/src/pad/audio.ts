// Sound in the pad app (experiences spec §8.4): Demo earcons and the Show
// soundtrack, driven only by the server's experience_state messages. Each
// browser has its own Sound toggle, off until the person turns it on (a
// browser only plays sound after a tap or key press on the page); the
// choice is remembered in localStorage. Sound never changes anything on
// the computer or on other devices.
//
// SoundPlan decides what to play (pure, tested in Node); PadSound plays it
// with <audio> elements. prefers-reduced-motion does not affect sound.

import type { ExperienceState } from "./protocol";

/** localStorage key of the Sound toggle: "on" or "off". */
export const SOUND_KEY = "lets-pad-sound";

/** The eleven earcon names (experiences spec §8.1). */
export const EARCONS = [
  "question",
  "approval",
  "approve",
  "reject",
  "retry",
  "stop",
  "success",
  "error",
  "cancelled",
  "session_selected",
  "unavailable",
] as const;

/** A Show soundtrack this far off the server's position is moved (s). */
export const RESYNC_S = 0.75;

/** The bank file of an earcon, or null for a name that is not one. */
export function earconURL(cue: string, slot: number | null): string | null {
  if (!(EARCONS as readonly string[]).includes(cue)) return null;
  const s = slot === null ? "none" : Number.isInteger(slot) && slot >= 0 && slot <= 7 ? String(slot) : null;
  return s === null ? null : `./experiences/audio/earcon-${cue}-${s}.wav`;
}

/**
 * The soundtrack URL for an audio_asset ("./" + asset), or null when the
 * asset is not a plain relative path of this app (no scheme, no "..", no
 * leading slash or backslash).
 */
export function soundtrackURL(asset: string | null): string | null {
  if (!asset || asset.length > 200) return null;
  if (!/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/.test(asset)) return null;
  if (asset.split("/").some((seg) => seg === "" || seg === "." || seg === "..")) return null;
  return `./${asset}`;
}

export type TrackCommand =
  | { op: "stop" }
  /** Stop, rewind, and start from 0 after delayMs. */
  | { op: "start"; url: string; delayMs: number }
  /** Play at rate, at position (s) if paused or more than RESYNC_S off. */
  | { op: "sync"; url: string; rate: number; position: number };

/** What each experience_state means for sound. */
export class SoundPlan {
  /** Last Demo earcon sequence seen; null until the first message of a connection. */
  private lastSeq: number | null = null;

  /** A new connection: the next message sets the baseline again. */
  reset(): void {
    this.lastSeq = null;
  }

  /**
   * The earcon to play for msg, or null. A Demo message plays its cue when
   * its audio_sequence grew; a smaller one means the server restarted its
   * count. The first message of a connection only sets the baseline, so
   * joining in the middle of a Demo does not replay an old sound.
   */
  earcon(msg: ExperienceState): string | null {
    const first = this.lastSeq === null;
    if (msg.kind !== "demo" || msg.audio_sequence === 0) {
      if (first) this.lastSeq = 0;
      return null;
    }
    const seq = msg.audio_sequence;
    if (first) {
      this.lastSeq = seq;
      return null;
    }
    if (seq === this.lastSeq || msg.status !== "playing" || msg.audio_cue === null) return null;
    this.lastSeq = seq;
    return earconURL(msg.audio_cue, msg.audio_slot);
  }

  /** What the soundtrack should do for msg, or null for nothing. */
  track(msg: ExperienceState): TrackCommand | null {
    if (msg.status === "idle" || msg.status === "blocked") return { op: "stop" };
    if (msg.kind !== "show") return null;
    const url = soundtrackURL(msg.audio_asset);
    if (!url) return { op: "stop" };
    if (msg.status === "starting") return { op: "start", url, delayMs: msg.start_delay_ms };
    return { op: "sync", url, rate: msg.tempo, position: msg.elapsed_ms / 1000 };
  }
}

/** Where a late "Sound on" should pick the soundtrack up. */
export function catchUp(cmd: TrackCommand, receivedAt: number, now: number): TrackCommand {
  const late = Math.max(0, now - receivedAt);
  if (cmd.op === "start") {
    if (late < cmd.delayMs) return { ...cmd, delayMs: cmd.delayMs - late };
    return { op: "sync", url: cmd.url, rate: 1, position: (late - cmd.delayMs) / 1000 };
  }
  if (cmd.op === "sync") return { ...cmd, position: cmd.position + (late / 1000) * cmd.rate };
  return cmd;
}

export interface SoundStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

/** Plays what SoundPlan decides, with <audio> elements. */
export class PadSound {
  private plan = new SoundPlan();
  private on: boolean;
  private earcons = new Map<string, HTMLAudioElement>();
  private track: HTMLAudioElement | null = null;
  private trackURL = "";
  private startTimer = 0;
  /** The last soundtrack command and when it arrived, for a late "Sound on". */
  private lastTrack: { cmd: TrackCommand; at: number } | null = null;

  constructor(
    private storage: SoundStorage,
    private make: (url: string) => HTMLAudioElement = (url) => new Audio(url),
    private now: () => number = () => performance.now(),
  ) {
    this.on = storage.get(SOUND_KEY) === "on";
  }

  get enabled(): boolean {
    return this.on;
  }

  /**
   * Turns sound on or off and remembers it. Call it from the click or key
   * handler: turning on plays a short bell, which is also what lets the
   * browser play later sounds without a gesture.
   */
  setEnabled(on: boolean): void {
    this.on = on;
    this.storage.set(SOUND_KEY, on ? "on" : "off");
    if (!on) {
      this.stopAll();
      return;
    }
    const bell = earconURL("session_selected", null);
    if (bell) this.playEarcon(bell);
    if (this.lastTrack) this.apply(catchUp(this.lastTrack.cmd, this.lastTrack.at, this.now()));
  }

  /**
   * Call on any tap or key press: after a reload with Sound remembered as
   * on, the browser refuses sound until the first gesture, so a Show that
   * is playing is picked up then.
   */
  gesture(): void {
    if (this.on && this.lastTrack && (!this.track || this.track.paused)) {
      this.apply(catchUp(this.lastTrack.cmd, this.lastTrack.at, this.now()));
    }
  }

  /** A new connection (the sequence baseline starts again). */
  reconnected(): void {
    this.plan.reset();
  }

  /** Feed every experience_state here, in order. */
  onExperience(msg: ExperienceState): void {
    const earcon = this.plan.earcon(msg);
    const cmd = this.plan.track(msg);
    if (cmd) this.lastTrack = cmd.op === "stop" ? null : { cmd, at: this.now() };
    if (!this.on) return;
    if (earcon) this.playEarcon(earcon);
    if (cmd) this.apply(cmd);
  }

  private playEarcon(url: string): void {
    let a = this.earcons.get(url);
    if (!a) {
      a = this.make(url);
      a.preload = "auto";
      this.earcons.set(url, a);
    }
    try {
      a.currentTime = 0;
    } catch {
      /* not loaded yet: it starts at 0 anyway */
    }
    play(a);
  }

  private trackFor(url: string): HTMLAudioElement {
    if (!this.track || this.trackURL !== url) {
      this.track?.pause();
      this.track = this.make(url);
      this.track.preload = "auto";
      this.trackURL = url;
    }
    return this.track;
  }

  private apply(cmd: TrackCommand): void {
    window.clearTimeout(this.startTimer);
    if (cmd.op === "stop") {
      this.stopTrack();
      return;
    }
    const a = this.trackFor(cmd.url);
    if (cmd.op === "start") {
      a.pause();
      seek(a, 0);
      a.playbackRate = 1;
      this.startTimer = window.setTimeout(() => play(a), cmd.delayMs);
      return;
    }
    a.playbackRate = cmd.rate;
    if (a.paused || Math.abs(a.currentTime - cmd.position) > RESYNC_S) seek(a, cmd.position);
    if (a.paused) play(a);
  }

  private stopTrack(): void {
    window.clearTimeout(this.startTimer);
    if (this.track) {
      this.track.pause();
      seek(this.track, 0);
    }
  }

  private stopAll(): void {
    this.stopTrack();
    for (const a of this.earcons.values()) a.pause();
  }
}

function seek(a: HTMLAudioElement, s: number): void {
  try {
    a.currentTime = s;
  } catch {
    /* no metadata yet: the browser seeks once it has it */
  }
}

function play(a: HTMLAudioElement): void {
  try {
    const p = a.play();
    if (p) p.catch(() => undefined); // refused (no gesture yet) or interrupted: stay quiet
  } catch {
    /* ignore */
  }
}

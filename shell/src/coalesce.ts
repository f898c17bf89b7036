// Coalescing of live component changes (spec lip-1 §4.3: slider and toggle
// `change` actions are coalesced over 150 ms). The first change of a burst
// goes out at once, later ones at most every window with the latest value,
// and flush() sends a pending one now (a slider's commit follows its last
// change). Timers are injected so Node tests run without waiting.

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export class Coalescer<T> {
  private pending: { value: T } | null = null;
  private timer: unknown = null;
  private lastSent = -Infinity;

  constructor(
    private readonly emit: (value: T) => void,
    private readonly windowMs = 150,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Records a new value; sends now or when the window ends. */
  push(value: T): void {
    const now = this.timers.now();
    if (this.timer === null && now - this.lastSent >= this.windowMs) {
      this.send(value);
      return;
    }
    this.pending = { value };
    if (this.timer === null) {
      this.timer = this.timers.set(() => {
        this.timer = null;
        this.flush();
      }, this.windowMs - (now - this.lastSent));
    }
  }

  /** Sends the pending value, if any, at once. */
  flush(): void {
    if (this.timer !== null) {
      this.timers.clear(this.timer);
      this.timer = null;
    }
    const p = this.pending;
    this.pending = null;
    if (p) this.send(p.value);
  }

  /** Drops a pending value (the component went away). */
  cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private send(value: T): void {
    this.lastSent = this.timers.now();
    this.emit(value);
  }
}

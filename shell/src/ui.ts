// ui.toast and ui.theme (seed §3.6, spec lip-1 §4.3). Toasts stack at most
// three deep (the oldest gives way); a theme picks light, dark or the
// system's, and sets --lets-* variables that passed the strict value check,
// on the shell's chrome and — through the SDK — on the unique's page.

import { h, iconButton, removeKeepingFocus, trackFocusOrigin } from "./dom";
import { checkThemeVars } from "./protocol";

export const TOAST_LEVELS = ["info", "ok", "warn", "error"] as const;
export const TOAST_MAX = 3;
export const TOAST_TTL = 4000;

/** The ttl a toast really gets: the default when absent, within 1 s–60 s. */
export function toastTTL(ttl: unknown): number {
  const t = typeof ttl === "number" && Number.isFinite(ttl) ? ttl : TOAST_TTL;
  return Math.max(1000, Math.min(t, 60000));
}

/**
 * How a toast's timer goes: it runs while nobody looks, holds while the
 * pointer is over the toast or the focus is in it, and runs again (for at
 * least RESUME_MS) when both have left. Error toasts have no timer at all:
 * they stay until the person dismisses them (issue #26).
 */
export const TOAST_RESUME_MS = 1500;

export interface ToastClock {
  set(fn: () => void, ms: number): number;
  clear(id: number): void;
}

const windowClock: ToastClock = {
  set: (fn, ms) => window.setTimeout(fn, ms),
  clear: (id) => window.clearTimeout(id),
};

export class Toasts {
  constructor(
    private readonly stack: HTMLElement,
    private readonly clock: ToastClock = windowClock,
  ) {}

  show(text: string, level: unknown, ttl: unknown): HTMLElement {
    const lv = TOAST_LEVELS.includes(level as (typeof TOAST_LEVELS)[number]) ? String(level) : "info";
    const close = iconButton("×", "Dismiss this message");
    const el = h("div", { class: "toast", "data-level": lv, role: lv === "error" ? "alert" : "status" }, h("span", { class: "toast-text", text: text }), close);
    trackFocusOrigin(el);
    const gone = () => this.take(el);
    close.addEventListener("click", gone);
    el.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape") return;
      ev.stopPropagation();
      gone();
    });
    this.stack.append(el);
    // Too many: the oldest that is not an error and not in use gives way.
    while (this.stack.childElementCount > TOAST_MAX) {
      const all = Array.from(this.stack.children) as HTMLElement[];
      const old = all.find((t) => t.dataset.level !== "error" && !t.matches(":hover, :focus-within")) ?? all.find((t) => !t.matches(":focus-within")) ?? all[0];
      this.take(old);
    }
    // A stack that scrolls (zoomed in) shows the newest.
    this.stack.scrollTop = this.stack.scrollHeight;
    if (lv === "error") {
      el.dataset.sticky = "true";
      return el;
    }
    let timer = 0;
    let hover = false;
    let focus = false;
    const hold = () => {
      this.clock.clear(timer);
      timer = 0;
      el.dataset.paused = "true";
    };
    const run = (ms: number) => {
      this.clock.clear(timer);
      delete el.dataset.paused;
      timer = this.clock.set(gone, ms);
    };
    const maybeRun = () => {
      if (!hover && !focus && el.isConnected) run(TOAST_RESUME_MS);
    };
    // Hovering or focusing keeps it up long enough to read.
    el.addEventListener("pointerenter", () => ((hover = true), hold()));
    el.addEventListener("pointerleave", () => ((hover = false), maybeRun()));
    el.addEventListener("focusin", () => ((focus = true), hold()));
    el.addEventListener("focusout", (ev) => {
      if (ev.relatedTarget instanceof Node && el.contains(ev.relatedTarget)) return;
      focus = false;
      maybeRun();
    });
    run(toastTTL(ttl));
    return el;
  }

  /** Takes a toast away; the focus, if it was on it, goes to a neighbour or back. */
  private take(el: HTMLElement): void {
    const next = (el.nextElementSibling ?? el.previousElementSibling)?.querySelector("button");
    removeKeepingFocus(el, [next]);
  }
}

/** The variables of the shell's palette that a unique gets as well. */
export const SHARED_VARS = ["--lets-bg", "--lets-fg", "--lets-muted", "--lets-line", "--lets-accent", "--lets-on-accent", "--lets-ok", "--lets-warn", "--lets-error", "--lets-card", "--lets-radius", "--lets-font"];

export interface ThemeState {
  name: "light" | "dark" | "system";
  /** The scheme in effect (system resolved). */
  scheme: "light" | "dark";
  vars: Record<string, string>;
}

export class Theme {
  private name: "light" | "dark" | "system" = "system";
  private custom: Record<string, string> = {};
  private readonly media = window.matchMedia("(prefers-color-scheme: dark)");

  constructor(
    private readonly root: HTMLElement,
    private readonly onChange: (s: ThemeState) => void,
  ) {
    this.media.addEventListener("change", () => this.onChange(this.state()));
  }

  /** ui.theme {name?, vars?}; returns the refused var names. */
  apply(d: Record<string, unknown>): string[] {
    if (d.name === "light" || d.name === "dark" || d.name === "system") this.name = d.name;
    if (this.name === "system") delete this.root.dataset.theme;
    else this.root.dataset.theme = this.name;
    const { applied, refused } = checkThemeVars(d.vars);
    for (const [k, v] of Object.entries(applied)) {
      this.root.style.setProperty(k, v);
      this.custom[k] = v;
    }
    for (const r of refused) console.warn(`lets: theme variable ${r.name} refused: ${r.reason}`);
    this.root.dataset.themeRefused = refused.map((r) => r.name).join(" ");
    this.onChange(this.state());
    return refused.map((r) => r.name);
  }

  /** What the unique should see: the resolved palette plus custom vars. */
  state(): ThemeState {
    const cs = getComputedStyle(this.root);
    const vars: Record<string, string> = {};
    for (const k of SHARED_VARS) {
      const v = cs.getPropertyValue(k).trim();
      if (v) vars[k] = v;
    }
    Object.assign(vars, this.custom);
    // Re-checked: the unique gets only values that pass the same rule.
    const checked = checkThemeVars(vars).applied;
    const scheme = this.name === "system" ? (this.media.matches ? "dark" : "light") : this.name;
    return { name: this.name, scheme, vars: checked };
  }
}

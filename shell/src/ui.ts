// ui.toast and ui.theme (seed §3.6, spec lip-1 §4.3). Toasts stack at most
// three deep (the oldest gives way); a theme picks light, dark or the
// system's, and sets --lets-* variables that passed the strict value check,
// on the shell's chrome and — through the SDK — on the unique's page.

import { h, iconButton } from "./dom";
import { checkThemeVars } from "./protocol";

export const TOAST_LEVELS = ["info", "ok", "warn", "error"] as const;
export const TOAST_MAX = 3;
export const TOAST_TTL = 4000;

/** The ttl a toast really gets: the default when absent, within 1 s–60 s. */
export function toastTTL(ttl: unknown): number {
  const t = typeof ttl === "number" && Number.isFinite(ttl) ? ttl : TOAST_TTL;
  return Math.max(1000, Math.min(t, 60000));
}

export class Toasts {
  constructor(private readonly stack: HTMLElement) {}

  show(text: string, level: unknown, ttl: unknown): HTMLElement {
    const lv = TOAST_LEVELS.includes(level as (typeof TOAST_LEVELS)[number]) ? String(level) : "info";
    const close = iconButton("×", "Dismiss this message");
    const el = h("div", { class: "toast", "data-level": lv, role: lv === "error" ? "alert" : "status" }, h("span", { class: "toast-text", text: text }), close);
    close.addEventListener("click", () => el.remove());
    this.stack.append(el);
    while (this.stack.childElementCount > TOAST_MAX) this.stack.firstElementChild?.remove();
    let timer = window.setTimeout(() => el.remove(), toastTTL(ttl));
    // Hovering or focusing keeps it up long enough to read.
    el.addEventListener("pointerenter", () => clearTimeout(timer));
    el.addEventListener("pointerleave", () => (timer = window.setTimeout(() => el.remove(), 1500)));
    return el;
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

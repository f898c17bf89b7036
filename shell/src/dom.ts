// Small DOM helpers for the shell's chrome modules. Text always goes in
// through textContent, never innerHTML: everything drawn here may come
// from Claude or a unique.

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  el.append(...children);
  return el;
}

/** A plain button with an accessible name. */
export function button(label: string, cls = "", aria?: string): HTMLButtonElement {
  const b = h("button", { type: "button", class: cls, text: label });
  if (aria) b.setAttribute("aria-label", aria);
  return b;
}

/**
 * A small symbol button (×, +): the symbol is drawn by CSS from data-icon,
 * so it is not part of the surrounding text, and the label names it.
 */
export function iconButton(symbol: string, label: string, cls = ""): HTMLButtonElement {
  const b = h("button", { type: "button", class: `icon ${cls}`.trim(), "data-icon": symbol, "aria-label": label, title: label });
  return b;
}

/**
 * Runs a DOM patch and puts focus and the caret back where the human left
 * them, should the patch have moved or re-created the focused control.
 */
export function keepFocus(scope: HTMLElement, patch: () => void): void {
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && scope.contains(active) ? active : null;
  const key = inside?.dataset.key;
  let sel: [number | null, number | null, string | null] | null = null;
  if (inside instanceof HTMLInputElement || inside instanceof HTMLTextAreaElement) {
    try {
      sel = [inside.selectionStart, inside.selectionEnd, inside.selectionDirection];
    } catch {
      sel = null; // number inputs have no selection
    }
  }
  patch();
  if (!inside) return;
  let target: HTMLElement | null = inside.isConnected ? inside : null;
  if (!target && key) target = scope.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
  if (!target || document.activeElement === target) return;
  target.focus({ preventScroll: true });
  if (sel && (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) && sel[0] !== null) {
    try {
      target.setSelectionRange(sel[0], sel[1] ?? sel[0], (sel[2] as "forward" | "backward" | "none" | null) ?? undefined);
    } catch {
      /* not a text control */
    }
  }
}

/** Image files among a paste's or a drop's items. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  const out: File[] = [];
  for (const f of Array.from(data.files ?? [])) if (f.type.startsWith("image/")) out.push(f);
  if (out.length) return out;
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind === "file" && item.type.startsWith("image/")) {
      const f = item.getAsFile();
      if (f) out.push(f);
    }
  }
  return out;
}

/** True when a drag carries files (so a drop zone should light up). */
export function dragHasFiles(ev: DragEvent): boolean {
  return Array.from(ev.dataTransfer?.types ?? []).includes("Files");
}

// ------------------------------------------------------------ focus return
// Passing chrome (a toast, one of Claude's cards, the companion's menu)
// may take the focus and then go away. When it does, the focus goes back
// to the control it came from, or to a sensible next one: never to the
// page's body, and never into the unique's frame when it came from one of
// the shell's own controls (issue #26).

const origins = new WeakMap<HTMLElement, HTMLElement>();

/** The shell's controls that are always there to fall back on, best first. */
const FALLBACKS = ["#lets-chat-input", "button.chat-toggle"];

/**
 * Remembers, for a piece of passing chrome, the control outside it that
 * had the focus when the focus first came in (Tab, a click, a shortcut).
 */
export function trackFocusOrigin(el: HTMLElement): void {
  el.addEventListener("focusin", (ev) => {
    const from = ev.relatedTarget;
    if (from instanceof HTMLElement && !el.contains(from) && from !== document.body) origins.set(el, from);
  });
}

/** True when el can take the focus now: in the page, shown and enabled. */
export function canFocus(el: Element | null | undefined): el is HTMLElement {
  if (!(el instanceof HTMLElement) || !el.isConnected) return false;
  if ((el as HTMLButtonElement).disabled || el.closest("[hidden], [inert]")) return false;
  if (el.getClientRects().length === 0) return false;
  const cs = getComputedStyle(el);
  return cs.visibility !== "hidden" && cs.display !== "none";
}

/**
 * Takes a piece of chrome away with remove() (by default el.remove()), and
 * if the focus was inside it (or is lost to the body afterwards, as after
 * a hidden button), puts it back: on the control it came from, else on
 * the first of fallbacks that can take it, else on the chat's input or
 * the Chat button. Returns the element that got the focus, if any.
 */
export function removeKeepingFocus(el: HTMLElement, fallbacks: (Element | null | undefined)[] = [], remove: () => void = () => el.remove()): HTMLElement | null {
  const active = document.activeElement;
  const had = active instanceof Element && el.contains(active);
  const origin = origins.get(el);
  remove();
  if (!had) return null;
  const now = document.activeElement;
  if (now && now !== document.body && now.isConnected && !el.contains(now)) return now as HTMLElement;
  const candidates: (Element | null | undefined)[] = [origin, ...fallbacks, ...FALLBACKS.map((s) => document.querySelector(s))];
  for (const c of candidates) {
    if (!canFocus(c) || el.contains(c)) continue;
    c.focus({ preventScroll: true });
    if (document.activeElement === c) return c;
  }
  return null;
}

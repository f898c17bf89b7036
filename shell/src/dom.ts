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

// Components (seed §3.4, spec lip-1 §4.3): the eight built-ins drawn in
// four slots. component.update patches the drawn controls in place, so a
// person typing in a form keeps focus, caret and what they typed; unknown
// types show as a note with the raw props. Actions go up as
// component.action from the shell, live changes coalesced over 150 ms.

import type { ChromeDeps } from "./chat";
import { copyText } from "./chat";
import { Coalescer } from "./coalesce";
import { button, iconButton, dragHasFiles, h, imageFiles, keepFocus, removeKeepingFocus, trackFocusOrigin } from "./dom";
import { componentView } from "./protocol";

export type Slot = "dock" | "float" | "panel" | "inline";
const SLOTS: readonly Slot[] = ["dock", "float", "panel", "inline"];

type Props = Record<string, unknown>;

interface Drawn {
  el: HTMLElement;
  requested: string;
  type: string;
  props: Props;
  coalescer?: Coalescer<unknown>;
  /** Form fields the human has edited: an update does not overwrite them. */
  dirty: Set<string>;
}

/** The controls a card's focus may go to when a neighbour card goes. */
const FOCUSABLE = 'button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex="0"]';

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
const num = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isFinite(v) ? v : fallback);

export class Components {
  private readonly slots: Record<Slot, HTMLElement>;
  private readonly drawn = new Map<string, Drawn>();

  constructor(
    host: HTMLElement,
    private readonly deps: ChromeDeps,
  ) {
    this.slots = {
      dock: h("div", { id: "lets-dock", class: "slot dock", role: "region", "aria-label": "Claude's controls" }),
      float: h("div", { id: "lets-float", class: "slot float" }),
      panel: h("div", { id: "lets-panel", class: "slot panel", role: "complementary", "aria-label": "Claude's side panel" }),
      inline: h("div", { id: "lets-inline", class: "slot inline" }),
    };
    for (const s of SLOTS) host.append(this.slots[s]);
    this.slots.panel.addEventListener("keydown", (ev) => {
      const t = ev.target as HTMLElement;
      if (ev.key !== "Escape" || t.closest("input, textarea, select")) return;
      // Esc closes the side sheet: every component in it is dismissed.
      for (const el of Array.from(this.slots.panel.children) as HTMLElement[]) if (this.drawn.get(el.dataset.component ?? "")?.props.dismissible !== false) this.dismiss(el.dataset.component ?? "");
    });
  }

  /** component.create (also for an id that exists: it is redrawn). */
  create(d: Props): void {
    const id = str(d.id);
    if (!id) return;
    this.remove(id);
    const view = componentView(d.type, d.props);
    const slot: Slot = SLOTS.includes(d.slot as Slot) ? (d.slot as Slot) : "dock";
    const el = h("section", { class: `component is-${view.type}`, "data-component": id, "data-type": view.type, "data-slot": slot });
    trackFocusOrigin(el);
    const rec: Drawn = { el, requested: typeof d.type === "string" ? d.type : "", type: view.type, props: view.props, dirty: new Set() };
    if (view.fallbackFrom !== undefined) el.dataset.fallback = view.fallbackFrom;
    this.drawn.set(id, rec);
    this.draw(id, rec, true);
    if (slot === "float") this.place(el, d.at);
    this.slots[slot].append(el);
    if (slot === "float") this.place(el, d.at);
    if (slot === "inline") this.followCompanion();
  }

  private following = 0;
  /**
   * Keeps the inline slot beside the companion (which moves) while it holds
   * something: to its side with room, clamped to the window.
   */
  private followCompanion(): void {
    const slot = this.slots.inline;
    const place = () => {
      if (!slot.childElementCount) {
        clearInterval(this.following);
        this.following = 0;
        return;
      }
      const c = document.querySelector<HTMLElement>(".lets-companion")?.getBoundingClientRect();
      const w = slot.offsetWidth;
      const hgt = slot.offsetHeight;
      let x = 16;
      let y = window.innerHeight - hgt - 84;
      if (c && c.width > 0) {
        x = c.right + 12 + w <= window.innerWidth ? c.right + 12 : c.left - 12 - w;
        y = c.top + c.height / 2 - hgt / 2;
      }
      slot.style.setProperty("left", `${Math.round(Math.max(8, Math.min(x, window.innerWidth - w - 8)))}px`);
      slot.style.setProperty("top", `${Math.round(Math.max(56, Math.min(y, window.innerHeight - hgt - 8)))}px`);
    };
    place();
    if (!this.following) this.following = window.setInterval(place, 250);
  }

  /** component.update: props are merged and the controls patched in place. */
  update(d: Props): void {
    const id = str(d.id);
    const rec = this.drawn.get(id);
    if (!rec) return;
    const patch = typeof d.props === "object" && d.props !== null && !Array.isArray(d.props) ? (d.props as Props) : {};
    rec.props = { ...rec.props, ...patch };
    keepFocus(rec.el, () => this.draw(id, rec, false));
  }

  /** component.remove. */
  remove(id: string): void {
    const rec = this.drawn.get(id);
    if (!rec) return;
    rec.coalescer?.flush();
    // The focus, if it was in the card, goes back to where it came from or
    // to the next card's first control (never to the page's body).
    const next = [rec.el.nextElementSibling, rec.el.previousElementSibling].map((c) => c?.querySelector(FOCUSABLE));
    removeKeepingFocus(rec.el, next);
    this.drawn.delete(id);
  }

  private action(id: string, action: string, value?: unknown): void {
    const data: Props = { id, action };
    if (value !== undefined) data.value = value;
    this.deps.emit("component.action", data);
  }

  private dismiss(id: string): void {
    if (!this.drawn.has(id)) return;
    this.action(id, "dismiss");
    this.remove(id);
  }

  private place(el: HTMLElement, at: unknown): void {
    const p = (typeof at === "object" && at !== null ? at : {}) as { x?: unknown; y?: unknown };
    const w = el.offsetWidth || 220;
    const hgt = el.offsetHeight || 80;
    const x = Math.max(8, Math.min(num(p.x, 24), window.innerWidth - w - 8));
    const y = Math.max(8, Math.min(num(p.y, 64), window.innerHeight - hgt - 8));
    el.style.setProperty("left", `${x}px`);
    el.style.setProperty("top", `${y}px`);
  }

  /** Builds (first) or patches (update) the component's content. */
  private draw(id: string, rec: Drawn, first: boolean): void {
    const { el, props } = rec;
    const part = <K extends keyof HTMLElementTagNameMap>(key: string, tag: K, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] => {
      let node = el.querySelector<HTMLElement>(`:scope > [data-part="${key}"]`) as HTMLElementTagNameMap[K] | null;
      if (!node) {
        node = h(tag, { ...attrs, "data-part": key });
        el.append(node);
      }
      return node;
    };
    const heading = str(props.title, str(props.label));
    const headEl = part("head", "h2", { class: "c-head" });
    headEl.textContent = heading;
    headEl.hidden = heading === "";
    if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", heading || `${rec.type} from Claude`);
    if (heading) el.setAttribute("aria-label", heading);
    // dismissible: false (the first-run setup steps) keeps a card until
    // Claude takes it down itself: no ×, and Esc in the side sheet leaves it.
    if (rec.type !== "form" && rec.type !== "slider" && rec.type !== "toggle" && first && props.dismissible !== false) {
      const x = iconButton("×", `Dismiss ${heading || rec.type}`, "dismiss");
      x.dataset.part = "dismiss";
      x.addEventListener("click", () => this.dismiss(id));
      el.append(x);
    }
    switch (rec.type) {
      case "note": {
        const text = part("text", "p", { class: "c-text" });
        text.textContent = str(props.text, str(props.body));
        el.dataset.tone = ["info", "ok", "warn", "error"].includes(str(props.tone)) ? str(props.tone) : "info";
        if (el.dataset.fallback !== undefined) {
          // A kind of part this window cannot draw: plain words, and what
          // Claude sent word for word one click away (issue #26).
          if (text.textContent === "") text.textContent = "Claude sent something this window cannot show yet.";
          const box = part("raw", "details", { class: "c-raw" });
          if (!box.firstChild) box.append(h("summary", { text: "Details" }), h("pre", { class: "raw" }));
          (box.querySelector("pre") as HTMLPreElement).textContent = `${el.dataset.fallback}: ${JSON.stringify(props, null, 2)}`;
        }
        text.hidden = text.textContent === "";
        break;
      }
      case "options":
        this.drawOptions(id, rec, part("items", "div", { class: "c-options", role: "group" }));
        break;
      case "slider": {
        const min = num(props.min, 0);
        const max = num(props.max, 100);
        const step = num(props.step, 1);
        const input = part("input", "input", { type: "range", "data-key": "value" });
        const out = part("out", "output", { class: "c-value" });
        input.setAttribute("aria-label", heading || "Value");
        input.min = String(min);
        input.max = String(max);
        input.step = String(step);
        if (first || (document.activeElement !== input && typeof props.value === "number")) input.value = String(num(props.value, min));
        const unit = str(props.unit);
        const show = () => (out.textContent = `${input.value}${unit ? ` ${unit}` : ""}`);
        show();
        if (first) {
          rec.coalescer = new Coalescer<unknown>((v) => this.action(id, "change", v));
          input.addEventListener("input", () => {
            show();
            rec.coalescer?.push(Number(input.value));
          });
          input.addEventListener("change", () => {
            rec.coalescer?.flush();
            this.action(id, "commit", Number(input.value));
          });
        }
        break;
      }
      case "toggle": {
        const sw = part("switch", "button", { type: "button", role: "switch", class: "c-switch", "data-key": "value" });
        sw.setAttribute("aria-label", heading || "Switch");
        if (first || typeof props.value === "boolean") sw.setAttribute("aria-checked", String(props.value === true));
        sw.replaceChildren(h("span", { class: "knob", "aria-hidden": "true" }));
        if (first) {
          rec.coalescer = new Coalescer<unknown>((v) => this.action(id, "change", v));
          sw.addEventListener("click", () => {
            const on = sw.getAttribute("aria-checked") !== "true";
            sw.setAttribute("aria-checked", String(on));
            rec.coalescer?.push(on);
          });
        }
        break;
      }
      case "form":
        this.drawForm(id, rec, part("form", "form", { class: "c-form" }));
        break;
      case "image-drop":
        this.drawImageDrop(id, rec, part("zone", "div", { class: "c-drop", role: "button", tabindex: "0", "data-key": "zone" }));
        break;
      case "progress": {
        const bar = part("bar", "progress", { class: "c-progress" });
        const max = num(props.max, 1) > 0 ? num(props.max, 1) : 1;
        bar.max = max;
        bar.setAttribute("aria-label", heading || "Progress");
        if (props.done === true) bar.value = max;
        else if (typeof props.value === "number") bar.value = Math.max(0, Math.min(props.value, max));
        else bar.removeAttribute("value"); // indeterminate
        el.dataset.done = String(props.done === true);
        const pct = part("pct", "span", { class: "c-value" });
        pct.textContent = props.done === true ? "Done" : bar.hasAttribute("value") ? `${Math.round((bar.value / max) * 100)}%` : "Working…";
        break;
      }
      case "code": {
        const lang = str(props.language);
        const fig = part("code", "figure", { class: "code c-codeblock" });
        const pre = fig.querySelector("pre") ?? fig.appendChild(h("pre", { tabindex: "0" }));
        const code = pre.querySelector("code") ?? pre.appendChild(h("code"));
        code.textContent = str(props.code);
        if (lang) code.dataset.lang = lang;
        pre.setAttribute("aria-label", lang ? `${lang} code` : "Code");
        if (first) {
          const copy = button("Copy", "copy", "Copy the code");
          copy.addEventListener("click", () => {
            void copyText(str(rec.props.code), copy);
            this.action(id, "copy");
          });
          fig.append(copy);
        }
        break;
      }
    }
  }

  private drawOptions(id: string, rec: Drawn, box: HTMLElement): void {
    const p = rec.props;
    const multi = p.multi === true;
    const items = (Array.isArray(p.items) ? p.items : []).filter((i): i is { id: string; label: string; hint?: string } => typeof i === "object" && i !== null && typeof (i as { id?: unknown }).id === "string");
    const selected = new Set(Array.isArray(p.selected) ? p.selected.filter((s): s is string => typeof s === "string") : []);
    box.setAttribute("aria-label", str(p.label, "Choices"));
    const existing = new Map<string, HTMLButtonElement>();
    for (const b of Array.from(box.querySelectorAll<HTMLButtonElement>("button[data-id]"))) existing.set(b.dataset.id ?? "", b);
    let prev: HTMLElement | null = null;
    for (const it of items) {
      let b = existing.get(it.id);
      existing.delete(it.id);
      if (!b) {
        b = button(it.label, "c-option");
        b.dataset.id = it.id;
        b.dataset.key = `opt:${it.id}`;
        b.addEventListener("click", () => {
          const bid = b?.dataset.id ?? "";
          if (!multi) {
            for (const o of Array.from(box.querySelectorAll<HTMLButtonElement>("button[data-id]"))) o.setAttribute("aria-pressed", String(o === b));
            this.action(id, "select", bid);
          } else {
            b?.setAttribute("aria-pressed", String(b.getAttribute("aria-pressed") !== "true"));
          }
        });
      }
      b.textContent = it.label;
      if (it.hint) b.title = it.hint;
      if (it.hint) b.setAttribute("aria-description", it.hint);
      if (Array.isArray(p.selected) || !b.hasAttribute("aria-pressed")) b.setAttribute("aria-pressed", String(selected.has(it.id)));
      const at: ChildNode | null = prev ? prev.nextSibling : box.firstChild;
      if (at !== b) box.insertBefore(b, at);
      prev = b;
    }
    for (const gone of existing.values()) gone.remove();
    let done = box.querySelector<HTMLButtonElement>("button.c-choose");
    if (multi && !done) {
      done = button("Choose", "c-choose primary", "Send the chosen items");
      done.dataset.key = "choose";
      done.addEventListener("click", () => {
        const ids = Array.from(box.querySelectorAll<HTMLButtonElement>('button[data-id][aria-pressed="true"]')).map((o) => o.dataset.id ?? "");
        this.action(id, "select", ids);
      });
    }
    if (done) {
      if (multi) box.append(done);
      else done.remove();
    }
  }

  private drawForm(id: string, rec: Drawn, form: HTMLFormElement): void {
    const p = rec.props;
    form.noValidate = false;
    if (!form.dataset.wired) {
      form.dataset.wired = "true";
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        if (!form.reportValidity()) return;
        this.action(id, "submit", formValue(form));
      });
      form.addEventListener("input", (ev) => {
        const name = (ev.target as HTMLElement).dataset?.key?.replace(/^field:/, "");
        if (name) rec.dirty.add(name);
      });
    }
    const fields = (Array.isArray(p.fields) ? p.fields : []).filter((f): f is Props => typeof f === "object" && f !== null && typeof (f as Props).name === "string");
    const rows = new Map<string, HTMLElement>();
    for (const r of Array.from(form.querySelectorAll<HTMLElement>(":scope > .c-field"))) rows.set(r.dataset.name ?? "", r);
    let prev: HTMLElement | null = null;
    for (const f of fields) {
      const name = str(f.name);
      const kind = ["text", "textarea", "number", "select", "checkbox"].includes(str(f.kind)) ? str(f.kind) : "text";
      let row = rows.get(name);
      rows.delete(name);
      if (row && row.dataset.kind !== kind) {
        row.remove();
        row = undefined;
      }
      if (!row) row = fieldRow(rec.el.dataset.component ?? "", name, kind);
      const control = row.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>("[data-key]");
      const label = row.querySelector("label span");
      if (label) label.textContent = str(f.label, name);
      if (control) {
        if ("placeholder" in control && control instanceof HTMLInputElement) control.placeholder = str(f.placeholder);
        if (control instanceof HTMLTextAreaElement) control.placeholder = str(f.placeholder);
        control.required = f.required === true;
        if (control instanceof HTMLSelectElement) {
          const opts = Array.isArray(f.options) ? f.options.filter((o): o is Props => typeof o === "object" && o !== null) : [];
          const keep = control.value;
          control.replaceChildren(...opts.map((o) => h("option", { value: str(o.value), text: str(o.label, str(o.value)) })));
          if (keep && opts.some((o) => o.value === keep)) control.value = keep;
        }
        // What the human typed wins over a value Claude sends meanwhile.
        const busy = rec.dirty.has(name) || document.activeElement === control;
        if (f.value !== undefined && !busy) {
          if (control instanceof HTMLInputElement && control.type === "checkbox") control.checked = f.value === true;
          else control.value = String(f.value);
        }
      }
      const at: ChildNode | null = prev ? prev.nextSibling : form.firstChild;
      if (at !== row) form.insertBefore(row, at);
      prev = row;
    }
    for (const gone of rows.values()) gone.remove();
    let actions = form.querySelector<HTMLElement>(":scope > .actions");
    if (!actions) {
      const submit = h("button", { type: "submit", class: "primary", "data-part": "submit" });
      const cancel = button("Cancel", "secondary");
      cancel.dataset.part = "cancel";
      cancel.addEventListener("click", () => {
        this.action(id, "cancel");
        this.remove(id);
      });
      actions = h("div", { class: "actions" }, cancel, submit);
    }
    form.append(actions); // stays last; it holds no text the human typed
    const submit = actions.querySelector<HTMLButtonElement>('[data-part="submit"]');
    if (submit) submit.textContent = str(p.submit, "Send");
    const cancel = actions.querySelector<HTMLButtonElement>('[data-part="cancel"]');
    if (cancel) {
      cancel.hidden = typeof p.cancel !== "string";
      cancel.textContent = str(p.cancel, "Cancel");
    }
  }

  private drawImageDrop(id: string, rec: Drawn, zone: HTMLElement): void {
    const p = rec.props;
    const label = str(p.label, "Drop an image here, paste one, or press Enter to choose a file");
    zone.setAttribute("aria-label", label);
    let text = zone.querySelector<HTMLElement>(".c-drop-text");
    if (!text) {
      text = h("span", { class: "c-drop-text" });
      const status = h("span", { class: "c-drop-status", role: "status" });
      const picker = h("input", { type: "file", class: "visually-hidden", tabindex: "-1", "aria-hidden": "true" });
      zone.append(text, status, picker);
      const accept = () => (Array.isArray(rec.props.accept) ? (rec.props.accept as string[]) : ["image/png", "image/jpeg", "image/gif", "image/webp"]);
      const take = (files: File[], source: "paste" | "drop" | "file") => {
        const ok = files.filter((f) => accept().includes(f.type));
        const list = rec.props.multiple === true ? ok : ok.slice(0, 1);
        if (!list.length) {
          status.textContent = files.length ? "That kind of file is not accepted here." : "";
          return;
        }
        for (const f of list) {
          status.textContent = `Uploading ${f.name || "the image"}…`;
          zone.dataset.state = "uploading";
          this.deps.upload(f, source, id).then(
            (r) => {
              zone.dataset.state = "done";
              status.textContent = `Sent ${f.name || "the image"} (${r.w}×${r.h}).`;
              this.action(id, "drop", { path: r.path, w: r.w, h: r.h, mime: r.mime, bytes: r.bytes });
            },
            (e: Error) => {
              zone.dataset.state = "failed";
              status.textContent = `The upload did not work: ${e.message}`;
            },
          );
        }
      };
      picker.addEventListener("change", () => {
        take(Array.from(picker.files ?? []), "file");
        picker.value = "";
      });
      zone.addEventListener("click", () => picker.click());
      zone.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          picker.click();
        }
      });
      zone.addEventListener("paste", (ev) => {
        const files = imageFiles(ev.clipboardData);
        if (files.length) {
          ev.preventDefault();
          take(files, "paste");
        }
      });
      zone.addEventListener("dragover", (ev) => {
        if (!dragHasFiles(ev)) return;
        ev.preventDefault();
        zone.dataset.over = "true";
      });
      zone.addEventListener("dragleave", () => delete zone.dataset.over);
      zone.addEventListener("drop", (ev) => {
        ev.preventDefault();
        delete zone.dataset.over;
        take(imageFiles(ev.dataTransfer), "drop");
      });
    }
    text.textContent = label;
    const picker = zone.querySelector<HTMLInputElement>("input[type=file]");
    if (picker) {
      picker.accept = Array.isArray(p.accept) ? (p.accept as string[]).join(",") : "image/png,image/jpeg,image/gif,image/webp";
      picker.multiple = p.multiple === true;
    }
  }
}

function fieldRow(component: string, name: string, kind: string): HTMLElement {
  const cid = `f-${component}-${name}`.replace(/[^A-Za-z0-9_-]/g, "_");
  let control: HTMLElement;
  if (kind === "textarea") control = h("textarea", { rows: "3" });
  else if (kind === "select") control = h("select");
  else control = h("input", { type: kind === "number" ? "number" : kind === "checkbox" ? "checkbox" : "text" });
  control.id = cid;
  control.dataset.key = `field:${name}`;
  control.setAttribute("name", name);
  const label = h("label", { for: cid }, h("span"));
  const row = h("div", { class: `c-field k-${kind}`, "data-name": name, "data-kind": kind });
  if (kind === "checkbox") row.append(control, label);
  else row.append(label, control);
  return row;
}

function formValue(form: HTMLFormElement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of Array.from(form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>("[data-key^='field:']"))) {
    const name = c.getAttribute("name") ?? "";
    if (c instanceof HTMLInputElement && c.type === "checkbox") out[name] = c.checked;
    else if (c instanceof HTMLInputElement && c.type === "number") out[name] = c.value === "" ? null : Number(c.value);
    else out[name] = c.value;
  }
  return out;
}

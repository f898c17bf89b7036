// The chat panel (seed §3.3, spec lip-1 §4.3): history, an input where
// Enter sends and Shift+Enter breaks the line, image attachments by paste,
// drop or the picker (uploaded before the message goes), Claude's streamed
// replies (chat.say by re and seq), a typing indicator, Markdown-lite with
// a copy button on code. It lives in the shell page (origin A), so the
// unique can neither read the input nor type into it.

import { button, iconButton, dragHasFiles, h, imageFiles } from "./dom";
import { linkText, parseMarkdownLite, type Block, type Inline } from "./markdown";
import { ChatStream, cleanEntries, type ChatEntry } from "./protocol";

export type { ChatEntry };

export interface UploadResult {
  path: string;
  w: number;
  h: number;
  mime: string;
  bytes: number;
}

export interface ChromeDeps {
  /** Sends an up-event as the shell (a human act). */
  emit(type: string, data: Record<string, unknown>): void;
  /** Stores an image through POST /lip/upload. */
  upload(blob: Blob, source: "paste" | "drop" | "file", componentId?: string): Promise<UploadResult>;
}

const HISTORY_MAX = 200;


/** Why the transcript changed. */
export type TranscriptWhy = "sent" | "answered" | "chose" | "loaded";

const SUGGESTIONS_MAX = 6;
const TYPING_MAX_MS = 30000;

export class Chat {
  readonly panel: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private readonly log: HTMLDivElement;
  private readonly input: HTMLTextAreaElement;
  private readonly typingEl: HTMLDivElement;
  private readonly attachRow: HTMLDivElement;
  private readonly sendBtn: HTMLButtonElement;
  private readonly streams = new Map<string, { stream: ChatStream; el: HTMLElement }>();
  private attachments: { path: string; mime: string; name: string }[] = [];
  private uploading = 0;
  private typingTimer = 0;
  private readonly form: HTMLFormElement;
  private readonly closeBtn: HTMLButtonElement;
  private entries: ChatEntry[] = [];
  private intro: HTMLElement | null = null;
  /** True while the chat is the window's main view (lip.chat.dock). */
  docked = false;
  /** Told after each change of the transcript (the docked chat only). */
  onTranscript: ((entries: ChatEntry[], why: TranscriptWhy) => void) | null = null;

  constructor(
    host: HTMLElement,
    bar: HTMLElement | null,
    private readonly deps: ChromeDeps,
  ) {
    this.toggle = button("Chat", "chat-toggle", "Open the chat with Claude");
    this.toggle.id = "lets-chat-toggle";
    this.toggle.setAttribute("aria-controls", "lets-chat");
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.addEventListener("click", () => (this.isOpen ? this.close(true) : this.open(true)));
    bar?.append(this.toggle);

    const close = iconButton("×", "Close the chat");
    close.addEventListener("click", () => this.close(true));
    this.closeBtn = close;
    const head = h("header", { class: "chat-head" }, h("h2", { id: "lets-chat-title", text: "Chat with Claude" }), close);

    this.log = h("div", { id: "lets-chat-log", class: "chat-log", role: "log", "aria-live": "polite", "aria-labelledby": "lets-chat-title", tabindex: "0" });
    this.typingEl = h("div", { class: "chat-typing", role: "status", "aria-live": "polite" }, h("span", { class: "dots", "aria-hidden": "true" }, h("i"), h("i"), h("i")), h("span", { text: "Claude is typing…" }));
    this.typingEl.hidden = true;
    this.attachRow = h("div", { class: "chat-attachments", "aria-label": "Attached images", role: "list" });

    const picker = h("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp", multiple: "", class: "visually-hidden", tabindex: "-1", "aria-hidden": "true" });
    picker.addEventListener("change", () => {
      for (const f of Array.from(picker.files ?? [])) void this.attach(f, "file");
      picker.value = "";
    });
    const attachBtn = iconButton("+", "Attach an image", "attach");
    attachBtn.addEventListener("click", () => picker.click());
    this.input = h("textarea", { id: "lets-chat-input", rows: "2", "aria-label": "Message to Claude", placeholder: "Write to Claude… (Enter sends, Shift+Enter for a new line)" });
    // Enter sends. Some input paths deliver the Enter's text apart from
    // its keydown, so the line break that would follow a send is dropped
    // too, until the key comes up.
    let sentByEnter = false;
    this.input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        sentByEnter = true;
        this.submit();
      }
    });
    this.input.addEventListener("beforeinput", (ev) => {
      if (sentByEnter && (ev.inputType === "insertLineBreak" || ev.inputType === "insertParagraph" || (ev.inputType === "insertText" && ev.data === "\r"))) ev.preventDefault();
    });
    this.input.addEventListener("keyup", (ev) => {
      if (ev.key === "Enter") sentByEnter = false;
    });
    this.input.addEventListener("paste", (ev) => {
      const files = imageFiles(ev.clipboardData);
      if (!files.length) return;
      ev.preventDefault();
      for (const f of files) void this.attach(f, "paste");
    });
    this.sendBtn = h("button", { type: "submit", class: "send", text: "Send", "aria-label": "Send the message" });
    const form = h("form", { class: "chat-form", "aria-label": "Write a message" }, attachBtn, picker, this.input, this.sendBtn);
    this.form = form;
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.submit();
    });

    this.panel = h("aside", { id: "lets-chat", class: "chat-panel", "aria-labelledby": "lets-chat-title" }, head, this.log, this.typingEl, this.attachRow, form);
    this.panel.hidden = true;
    this.panel.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && !this.docked) {
        ev.stopPropagation();
        this.close(true);
      }
    });
    this.panel.addEventListener("dragover", (ev) => {
      if (!dragHasFiles(ev)) return;
      ev.preventDefault();
      this.panel.dataset.drop = "true";
    });
    this.panel.addEventListener("dragleave", () => delete this.panel.dataset.drop);
    this.panel.addEventListener("drop", (ev) => {
      delete this.panel.dataset.drop;
      const files = imageFiles(ev.dataTransfer);
      if (!files.length) return;
      ev.preventDefault();
      for (const f of files) void this.attach(f, "drop");
    });
    host.append(this.panel);
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  /** chat.open, or the human's toggle (which also moves focus into it). */
  open(byHuman = false): void {
    this.panel.hidden = false;
    this.toggle.setAttribute("aria-expanded", "true");
    this.toggle.setAttribute("aria-label", "Close the chat with Claude");
    if (byHuman) this.input.focus();
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** chat.close, Esc, or the close button. */
  close(byHuman = false): void {
    if (this.docked) return; // the main view stays
    const hadFocus = this.panel.contains(document.activeElement);
    this.panel.hidden = true;
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.setAttribute("aria-label", "Open the chat with Claude");
    if (byHuman || hadFocus) this.toggle.focus();
  }

  /** chat.typing {on}. */
  typing(on: boolean): void {
    this.typingEl.hidden = !on;
    clearTimeout(this.typingTimer);
    // A lost "off" must not leave the dots running for ever.
    if (on) this.typingTimer = window.setTimeout(() => (this.typingEl.hidden = true), TYPING_MAX_MS);
  }

  /** chat.say: one chunk of the reply with this re (or a whole reply). */
  say(re: string, data: { text?: unknown; seq?: unknown; done?: unknown }): void {
    let s = this.streams.get(re);
    if (!s) {
      const el = h("div", { class: "chat-msg chat-bubble", "data-re": re, "aria-busy": "true" });
      this.append(el);
      s = { stream: new ChatStream(), el };
      this.streams.set(re, s);
    }
    if (!s.stream.add(data)) return;
    renderMarkdown(s.el, s.stream.text());
    const done = s.stream.done;
    s.el.dataset.done = String(done);
    if (done) {
      s.el.removeAttribute("aria-busy");
      this.typing(false);
      if (!s.el.dataset.recorded) {
        s.el.dataset.recorded = "true";
        this.record({ role: "claude", text: s.stream.text(), at: new Date().toISOString() }, "answered");
      }
    }
    if (!this.isOpen) this.open(false);
    this.log.scrollTop = this.log.scrollHeight;
  }

  private append(el: HTMLElement): void {
    this.log.append(el);
    while (this.log.childElementCount > HISTORY_MAX) {
      const old = this.log.firstElementChild as HTMLElement | null;
      if (!old) break;
      if (old.dataset.re) this.streams.delete(old.dataset.re);
      old.remove();
    }
  }

  private async attach(file: File, source: "paste" | "drop" | "file"): Promise<void> {
    const chip = h("div", { class: "chip", role: "listitem", "data-state": "uploading" }, h("span", { text: `${file.name || "image"} — uploading…` }));
    this.attachRow.append(chip);
    this.uploading++;
    this.sendBtn.disabled = true;
    try {
      const r = await this.deps.upload(file, source);
      const a = { path: r.path, mime: r.mime, name: file.name || "image" };
      this.attachments.push(a);
      chip.dataset.state = "ready";
      chip.dataset.path = r.path;
      const remove = iconButton("×", `Remove ${a.name}`);
      remove.addEventListener("click", () => {
        this.attachments = this.attachments.filter((x) => x !== a);
        chip.remove();
        this.input.focus();
      });
      chip.replaceChildren(h("span", { text: `${a.name} (${r.w}×${r.h})` }), remove);
    } catch (e) {
      chip.dataset.state = "failed";
      chip.replaceChildren(h("span", { text: `${file.name || "The image"} could not be attached: ${(e as Error).message}` }));
      setTimeout(() => chip.remove(), 6000);
    } finally {
      this.uploading--;
      this.sendBtn.disabled = this.uploading > 0;
    }
  }

  private submit(): void {
    // Attachments are uploaded first; the message waits for them.
    if (this.uploading > 0) return;
    const text = this.input.value.trim();
    if (!text && !this.attachments.length) return;
    const data: Record<string, unknown> = { text };
    if (this.attachments.length) data.attachments = this.attachments.map(({ path, mime }) => ({ path, mime }));
    this.deps.emit("chat.message", data);
    const mine = h("div", { class: "chat-msg me" });
    renderMarkdown(mine, text);
    for (const a of this.attachments) mine.append(h("div", { class: "chat-file", text: `Image: ${a.name}` }));
    this.append(mine);
    const entry: ChatEntry = { role: "human", text, at: new Date().toISOString() };
    if (this.attachments.length) entry.attachments = this.attachments.map(({ path, mime }) => ({ path, mime }));
    this.input.value = "";
    this.attachments = [];
    this.attachRow.replaceChildren();
    this.log.scrollTop = this.log.scrollHeight;
    this.record(entry, "sent");
  }

  // ------------------------------------------------ the docked chat (lip.chat)

  /**
   * Makes the chat the window's main view inside stage (a unique asked
   * with lip.chat.dock): always open, no close button, Claude's dock slot
   * just above the input. From now on the unique hears the transcript.
   */
  dock(stage: HTMLElement, dockSlot: HTMLElement | null): void {
    if (this.docked) return;
    this.docked = true;
    this.panel.dataset.docked = "true";
    this.closeBtn.hidden = true;
    this.toggle.hidden = true;
    stage.append(this.panel);
    if (dockSlot) this.panel.insertBefore(dockSlot, this.form);
    this.open(false);
    if (!this.panel.contains(document.activeElement)) this.input.focus({ preventScroll: true });
  }

  /**
   * A welcome line from the companion at the top of the log and chips
   * the human may press to send a first message. Chips go once the
   * conversation starts.
   */
  setIntro(text: string, suggestions: string[]): void {
    this.intro?.remove();
    this.intro = null;
    text = text.trim().slice(0, 500);
    const chips = suggestions
      .map((s) => s.trim().slice(0, 120))
      .filter((s) => s !== "")
      .slice(0, SUGGESTIONS_MAX);
    if (!text && !chips.length) return;
    const box = h("div", { class: "chat-intro" });
    if (text) box.append(h("div", { class: "chat-msg companion", role: "note", "aria-label": "Welcome" }, h("p", { text })));
    if (chips.length && !this.entries.length) {
      const row = h("div", { class: "chat-suggest", role: "group", "aria-label": "Ideas to start with" });
      for (const s of chips) {
        const b = button(s, "chat-chip", `Send: ${s}`);
        b.addEventListener("click", () => this.sendText(s));
        row.append(b);
      }
      box.append(row);
    }
    this.intro = box;
    this.log.prepend(box);
  }

  /** Sends text as the human's message, as if typed (a chip press). */
  sendText(text: string): void {
    if (this.uploading > 0) return;
    const keep = this.input.value;
    this.input.value = text;
    const files = this.attachments;
    this.attachments = [];
    this.submit();
    this.attachments = files;
    this.input.value = keep;
    this.input.focus({ preventScroll: true });
  }

  /** Notes the human's pick in one of Claude's components. */
  choice(text: string): void {
    const el = h("div", { class: "chat-msg me choice" }, h("p", { text }));
    this.append(el);
    this.log.scrollTop = this.log.scrollHeight;
    this.record({ role: "human", kind: "choice", text, at: new Date().toISOString() }, "chose");
  }

  /** Puts a saved conversation back (lip.chat.load); returns how many turns. */
  load(raw: unknown): number {
    const entries = cleanEntries(raw);
    for (const el of Array.from(this.log.children)) if (el !== this.intro) el.remove();
    this.streams.clear();
    for (const e of entries) {
      const el = h("div", { class: `chat-msg${e.role === "human" ? " me" : " chat-bubble"}${e.kind === "choice" ? " choice" : ""}`, "data-restored": "true" });
      renderMarkdown(el, e.text);
      for (const a of e.attachments ?? []) el.append(h("div", { class: "chat-file", text: `Image: ${a.path.split("/").pop() ?? "image"}` }));
      this.append(el);
    }
    this.entries = entries;
    if (entries.length) this.intro?.querySelector(".chat-suggest")?.remove();
    this.log.scrollTop = this.log.scrollHeight;
    this.onTranscript?.(this.transcript(), "loaded");
    return entries.length;
  }

  /** A copy of the conversation so far. */
  transcript(): ChatEntry[] {
    return this.entries.map((e) => ({ ...e, ...(e.attachments ? { attachments: e.attachments.map((a) => ({ ...a })) } : {}) }));
  }

  private record(e: ChatEntry, why: TranscriptWhy): void {
    if (!this.docked) return;
    this.entries.push(e);
    if (this.entries.length > HISTORY_MAX) this.entries.splice(0, this.entries.length - HISTORY_MAX);
    this.intro?.querySelector(".chat-suggest")?.remove();
    this.onTranscript?.(this.transcript(), why);
  }
}

/** Draws Markdown-lite into el (replacing its content). */
export function renderMarkdown(el: HTMLElement, text: string): void {
  el.replaceChildren(...parseMarkdownLite(text).map(blockNode));
}

function blockNode(b: Block): HTMLElement {
  switch (b.kind) {
    case "p":
      return h("p", {}, ...b.inlines.map(inlineNode));
    case "list": {
      const list = h(b.ordered ? "ol" : "ul");
      for (const item of b.items) list.append(h("li", {}, ...item.map(inlineNode)));
      return list;
    }
    case "code": {
      const code = h("code", { text: b.text });
      if (b.lang) code.dataset.lang = b.lang;
      const copy = button("Copy", "copy", b.lang ? `Copy the ${b.lang} code` : "Copy the code");
      copy.addEventListener("click", () => void copyText(b.text, copy));
      return h("figure", { class: "code" }, h("pre", {}, code), copy);
    }
  }
}

function inlineNode(i: Inline): Node {
  switch (i.kind) {
    case "text":
      return document.createTextNode(i.text);
    case "code":
      return h("code", { text: i.text });
    case "strong":
      return h("strong", { text: i.text });
    case "em":
      return h("em", { text: i.text });
    case "link":
      // Shown, never fetched or opened: no <a>, no href.
      return h("span", { class: "link", title: "Links are shown as text; copy it to open it yourself", text: linkText(i) });
  }
}

/** Copies text and says so on the button; false when the browser refused. */
export async function copyText(text: string, btn?: HTMLButtonElement): Promise<boolean> {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // Older engines or a denied permission: the selection route, which
    // borrows the focus for a moment and gives it back.
    const had = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const ta = h("textarea", { class: "visually-hidden", "aria-hidden": "true" });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
    had?.focus({ preventScroll: true });
  }
  if (btn) {
    const was = btn.dataset.label ?? btn.textContent ?? "Copy";
    btn.dataset.label = was;
    btn.textContent = ok ? "Copied" : "Select and copy";
    btn.dataset.copied = String(ok);
    setTimeout(() => {
      btn.textContent = was;
      delete btn.dataset.copied;
    }, 1500);
  }
  return ok;
}


// The home page: whether Lets runs (GET /lip/health, public), and, when
// Lets opened the page with its one-time link, the uniques (open, resume,
// remove, install), "Chat with Claude" (start, continue, delete), saved
// sessions, paired phones and Claude's set-up.

import { HomeAPI, HostError, type ChatInfo, type HomeUnique, type Overview } from "./home/api";
import { chatMeta, claudeStatus, folderName, formatUptime, formatWhen, initial, phonesStatus, placeName } from "./home/format";
import { ClaudeInstall } from "./home/claude";
import { CodexCard } from "./home/codex";
import { focusHeading, wantsWelcome, welcomeCard } from "./home/welcome";
import { TrustedCard } from "./home/trusted";
import { WaitingCard, type WaitingWindow } from "./home/waiting";
import { Icons } from "./home/icons";

export { formatUptime } from "./home/format";

interface Health {
  ok: boolean;
  version: string;
  uptime_s: number;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`home page is missing #${id}`);
  return el as T;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/**
 * A "Details" toggle: what a developer may want (an address, a command,
 * the raw error) stays one click away, out of the plain words (#26).
 */
function details(text: string, asCode = false): HTMLDetailsElement {
  const d = el("details", { className: "more" }, el("summary", {}, "Details"), el(asCode ? "code" : "p", {}, text));
  return d;
}

/** Writes a note: plain words, and the raw reason behind "Details" when there is one. */
function say(note: HTMLElement, state: string, text: string, detail = ""): void {
  note.dataset.state = state;
  note.replaceChildren(text, ...(detail ? [details(detail)] : []));
}

/** The reason of a failed call, for "Details" ("" none). */
function reason(e: unknown): string {
  return e instanceof Error ? e.message : "";
}

/**
 * Moves the keyboard focus to the first of these that is on the page and
 * shown, so a removed control never leaves it on the page's body.
 */
function focusFirst(...candidates: (HTMLElement | null | undefined)[]): boolean {
  for (const c of candidates) {
    if (c && c.isConnected && c.getClientRects().length > 0) {
      c.focus();
      if (document.activeElement === c) return true;
    }
  }
  return false;
}

/** How long an unanswered "Yes, delete" waits once the person has left it. */
const ASK_MS = 8000;

/**
 * The inline "Yes, delete" / "Yes, remove" question: Escape (with the
 * focus anywhere in its row) or a few quiet seconds take it back; the
 * focus stays on (or returns to) the button that asked. The quiet seconds
 * count only while neither the keyboard nor the pointer is on the button:
 * the question never changes under someone who is still deciding (WCAG
 * 2.2.1).
 */
function arm(button: HTMLButtonElement, note: HTMLElement, yes: string, what: string, question: string): void {
  const label = button.textContent ?? "";
  const name = button.getAttribute("aria-label");
  button.dataset.armed = "yes";
  button.textContent = yes;
  // The name starts with the words shown (WCAG 2.5.3): "Yes, delete Letters".
  button.setAttribute("aria-label", `${yes} ${what}`);
  say(note, "ask", question);
  const row = button.closest("li") ?? button.parentElement;
  const listening = new AbortController();
  let timer = 0;
  const disarm = (): void => {
    listening.abort();
    window.clearTimeout(timer);
    if (!button.isConnected || button.dataset.armed !== "yes" || button.disabled) return;
    button.dataset.armed = "";
    button.textContent = label;
    if (name === null) button.removeAttribute("aria-label");
    else button.setAttribute("aria-label", name);
    note.dataset.state = "";
    note.replaceChildren();
  };
  const onKey = (ev: Event): void => {
    if ((ev as KeyboardEvent).key !== "Escape") return;
    ev.preventDefault();
    disarm();
    button.focus();
  };
  const held = (): boolean => button.matches(":focus, :hover");
  const hold = (): void => window.clearTimeout(timer);
  const release = (): void => {
    window.clearTimeout(timer);
    // pointerleave and focusout come before :hover and :focus change.
    timer = window.setTimeout(() => (held() ? release() : disarm()), ASK_MS);
  };
  const opts = { signal: listening.signal };
  row?.addEventListener("keydown", onKey, opts);
  button.addEventListener("focusin", hold, opts);
  button.addEventListener("pointerenter", hold, opts);
  button.addEventListener("focusout", release, opts);
  button.addEventListener("pointerleave", release, opts);
  if (!held()) release();
}

/** Text with `code` spans as <code> elements (never as HTML). */
function rich(text: string): (Node | string)[] {
  return text.split("`").map((part, i) => (i % 2 === 1 ? el("code", {}, part) : part));
}

function show(state: "ok" | "down" | "checking", text: string): void {
  // Only what changed: the same state set again would restart nothing, but
  // the same words set again may be read out again (a live region).
  const status = byId("status");
  if (status.dataset.state !== state) status.dataset.state = state;
  const words = byId("status-text");
  if (words.textContent !== text) words.textContent = text;
}

/** Hides a row (its display style wins over the hidden attribute's). */
function hide(node: HTMLElement, hidden: boolean): void {
  node.hidden = hidden;
  node.style.display = hidden ? "none" : "";
}

function session(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

async function refreshHealth(announce = true): Promise<void> {
  // The check every 30 s keeps quiet while Lets stays up: "checking" and
  // back to "ok" would start the dot's breaths again each time, so an idle
  // window would never rest (issue #21).
  if (announce || byId("status").dataset.state !== "ok") show("checking", "Checking whether Lets is running…");
  try {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 3000);
    const res = await fetch("/lip/health", { cache: "no-store", signal: controller.signal });
    clearTimeout(timer);
    if (!res.ok) throw new Error(`status ${res.status}`);
    const h = (await res.json()) as Health;
    show("ok", "Lets is running and ready.");
    byId("version").textContent = h.version;
    byId("uptime").textContent = formatUptime(h.uptime_s);
  } catch {
    show("down", "Lets is not answering. Start it again from your apps menu.");
    byId("uptime").textContent = "—";
  }
}

class Home {
  private busy = false;
  /** The Claude card's Install Claude Code button (home/claude.ts), made on the first overview. */
  private claudeInstall: ClaudeInstall | null = null;
  /** The Codex card (home/codex.ts), made on the first overview. */
  private codex: CodexCard | null = null;
  // The last overview shown: an unchanged one is not drawn again, so a
  // refresh never takes the keyboard focus away.
  private shown = "";
  /** Refreshes asked for, and the newest one drawn (see refresh). */
  private asked = 0;
  private drawn = 0;

  /** The "Waiting for you" card (home/waiting.ts), made once the page has access. */
  waiting: WaitingCard | null = null;

  private readonly icons = new Icons((name) => this.api.icon(name));

  constructor(private readonly api: HomeAPI) {}

  /** Shows the locked card with a reason (no link, used link, restart). */
  lock(text?: string): void {
    byId("home").dataset.access = "none";
    if (text) byId("locked-text").replaceChildren(...rich(text));
  }

  /** Fetches the overview and redraws what changed; keep is a note to carry over. */
  async refresh(keep?: HTMLElement): Promise<void> {
    // Refreshes overlap (an Open's, the timer's, the tab coming back): an
    // answer older than the one on screen must not draw over it.
    const ticket = ++this.asked;
    let ov: Overview;
    try {
      ov = await this.api.overview();
    } catch (e) {
      this.fail(e);
      return;
    }
    if (ticket < this.drawn) return;
    this.drawn = ticket;
    byId("home").dataset.access = "yes";
    const key = JSON.stringify(ov);
    if (key === this.shown) return;
    this.shown = key;
    // A redraw replaces the buttons: give the keyboard focus back to the
    // same one afterwards.
    const focusKey = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const problems = byId("problems");
    problems.hidden = ov.problems.length === 0;
    problems.textContent = ov.problems.join(" ");
    this.waiting?.render((ov as Overview & { waiting?: WaitingWindow[] }).waiting ?? []);
    // A redraw makes fresh notes: every note that says something (the
    // one this refresh was asked to keep, and any other an Open or a
    // Remove wrote meanwhile) says the same thing on its fresh element.
    const said = [...document.querySelectorAll<HTMLElement>("p.open-note[id][data-state]")];
    if (keep?.id && !said.includes(keep)) said.push(keep);
    this.renderChats(ov);
    this.renderUniques(ov);
    this.renderSessions(ov);
    for (const old of said) {
      // A question ("Yes, delete") is not carried over: its button is
      // drawn afresh, unasked, and the words must match it.
      if (old.dataset.state === "ask") continue;
      const fresh = document.getElementById(old.id);
      if (fresh && fresh !== old) {
        fresh.replaceChildren(...[...old.childNodes].map((n) => n.cloneNode(true)));
        Object.assign(fresh.dataset, old.dataset);
      }
    }
    this.renderDevices(ov);
    if (focusKey) document.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus();
    const c = claudeStatus(ov.claude, ov.actions?.setup_claude === true);
    const claude = byId("claude");
    claude.dataset.state = c.state;
    claude.replaceChildren(...rich(c.text), ...(c.detail ? [details(c.detail, true)] : []));
    this.renderActions(ov, c.state !== "ready");
    if (!this.claudeInstall) {
      this.claudeInstall = new ClaudeInstall(
        (progress, signal) => this.api.installClaude(progress, signal),
        () => this.refresh(),
      );
    }
    this.claudeInstall.render(ov.claude);
    if (ov.codex) {
      this.codex ??= new CodexCard(
        (remove) => this.api.setupCodex(remove),
        () => this.refresh(),
      );
      this.codex.render(ov.codex, ov.actions?.setup_codex === true);
    }
  }

  /**
   * The Phones and Claude cards' own buttons for what the tray menu offers
   * too (#21: without a tray host the home window is all there is). Made
   * once, below each card's words; hidden when this Lets cannot do it.
   */
  private renderActions(ov: Overview, claudeNotReady: boolean): void {
    const pair = this.actionRow("devices", "pair-phone", "Pair a phone", () => void this.pairPhone());
    hide(pair, ov.actions?.pair_phone !== true);
    const button = byId<HTMLButtonElement>("pair-phone");
    button.textContent = ov.devices.list.length > 0 ? "Pair another phone" : "Pair a phone";
    const setup = this.actionRow("claude", "setup-claude", "Set up Claude", () => void this.setupClaude());
    hide(setup, ov.actions?.setup_claude !== true || !claudeNotReady);
  }

  /** The row after #after with one button and its status note, made on first use. */
  private actionRow(after: string, id: string, label: string, run: () => void): HTMLElement {
    const existing = document.getElementById(`${id}-row`);
    if (existing) return existing;
    const b = el("button", { type: "button", id }, label);
    b.dataset.focusKey = `action:${id}`;
    b.addEventListener("click", run);
    const note = el("p", { className: "open-note", id: `${id}-note` });
    note.setAttribute("role", "status");
    b.setAttribute("aria-describedby", note.id);
    const row = el("div", { className: "row", id: `${id}-row` }, b);
    byId(after).after(row, note);
    return row;
  }

  /** Opens the pad page's pairing view in the browser, as the tray's "Pair a phone…" does. */
  private async pairPhone(): Promise<void> {
    const button = byId<HTMLButtonElement>("pair-phone");
    const note = byId("pair-phone-note");
    if (button.disabled) return;
    button.disabled = true;
    note.dataset.state = "";
    note.textContent = "Opening the pairing page…";
    try {
      await this.api.pairPhone();
      note.textContent = "The pairing page opened in your browser. Let phones on this network connect there (only on networks you trust), then scan its code with your phone.";
    } catch (e) {
      say(note, "error", "The pairing page could not open. Check that Lets is running and try again.", reason(e));
    } finally {
      button.disabled = false;
    }
  }

  /** Connects Claude Code to Lets, as the tray's "Set up Claude…" does, and says how it went. */
  private async setupClaude(): Promise<void> {
    const button = byId<HTMLButtonElement>("setup-claude");
    const note = byId("setup-claude-note");
    if (button.disabled) return;
    button.disabled = true;
    button.textContent = "Setting up…";
    note.dataset.state = "";
    note.textContent = "Connecting Claude Code to Lets…";
    try {
      const res = await this.api.setupClaude();
      note.dataset.state = res.done ? "ok" : "error";
      note.replaceChildren(...rich(res.detail ? `${res.text}. ${res.detail}.` : `${res.text}.`));
      await this.refresh();
      // Set up, the button goes: the keyboard focus stays in the card.
      if (byId("setup-claude-row").hidden) focusHeading("claude-title");
    } catch (e) {
      say(note, "error", "Claude could not be set up. Check that Lets is running and try again.", reason(e));
    } finally {
      button.disabled = false;
      button.textContent = "Set up Claude";
    }
  }

  private fail(e: unknown): void {
    if (e instanceof HostError && e.status === 401) {
      this.api.forget(session());
      this.lock("This page's access ended (Lets was restarted, or the page is older than it). Choose Home in the Lets tray menu, or start Lets again from your apps menu, to open it afresh.");
      return;
    }
    const problems = byId("problems");
    problems.hidden = false;
    say(problems, "error", "Lets could not answer just now. Check that it is running; this page tries again by itself.", reason(e));
  }

  private renderChats(ov: Overview): void {
    const card = byId("chat");
    const chat = ov.chat ?? { available: false, list: [] };
    card.dataset.available = chat.available ? "yes" : "no";
    byId("chat-lead").replaceChildren(
      ...rich(
        chat.available
          ? "Talk with Claude in a window of its own. Claude asks you before it changes anything on your computer."
          : "Chat with Claude is not available in this Lets. Quit Lets and start it again from your apps menu to use it.",
      ),
    );
    const list = byId("chats");
    list.replaceChildren();
    if (!chat.available) return;
    if (chat.list.length === 0) {
      list.append(el("li", { className: "empty" }, "No chats yet. Start one above; it will be listed here to continue later."));
      return;
    }
    const now = Date.now();
    for (const c of chat.list) list.append(this.chatItem(c, now));
  }

  private chatItem(c: ChatInfo, now: number): HTMLLIElement {
    const title = c.title.trim() || "Untitled chat";
    const note = el("p", { className: "open-note", id: `c-${c.id}-note` });
    note.setAttribute("role", "status");
    const go = el("button", { type: "button", className: "quiet continue" }, "Continue");
    go.setAttribute("aria-label", `Continue ${title}`);
    go.dataset.focusKey = `chat-continue:${c.id}`;
    go.addEventListener("click", () => void this.openChat(c.id, title, note, go));
    const del = el("button", { type: "button", className: "danger delete" }, "Delete");
    del.setAttribute("aria-label", `Delete ${title}`);
    del.dataset.focusKey = `chat-delete:${c.id}`;
    del.addEventListener("click", () => void this.deleteChat(c, title, note, del));
    const li = el(
      "li",
      {},
      el("span", { className: "what" }, el("strong", {}, title), el("span", { className: "when" }, chatMeta(c, now))),
      el("span", { className: "actions" }, go, del),
      note,
    );
    li.dataset.chat = c.id;
    return li;
  }

  /** Opens a conversation (id "" a new one, working in folder when given) in its chat window. */
  async openChat(id: string, title: string, note: HTMLElement, button: HTMLButtonElement, folder?: string): Promise<void> {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    note.dataset.state = "working";
    note.textContent = id ? `Opening ${title}…` : "Opening a new chat… (the first time, Lets checks that Claude is ready)";
    try {
      const res = (await this.api.chat(id || undefined, folder)) as { window: string; shown?: string };
      note.dataset.state = "ok";
      note.dataset.window = res.window;
      if (res.shown === "waiting") {
        note.textContent = "The chat is ready: open it under “Waiting for you” at the top of this page.";
        await this.waiting?.poll();
      } else {
        note.textContent = id ? `${title} is opening in its own window.` : "The chat is opening in its own window. Say hello to Claude there.";
      }
      await this.refresh(note);
    } catch (e) {
      say(note, "error", "The chat could not open. Check that Lets is running and try again.", reason(e));
    } finally {
      button.removeAttribute("aria-disabled");
    }
  }

  // ------------------------------------------------ new chat in a folder

  /** The folder the chooser shows. */
  private folderPath = "";

  /** Shows the folder chooser for a new chat, at the home folder. */
  async openFolders(): Promise<void> {
    byId("folder-picker").hidden = false;
    byId("chat-folder").setAttribute("aria-expanded", "true");
    await this.showFolder("");
    byId<HTMLElement>("folder-title").focus();
  }

  /** Hides the chooser; focus goes back to the button that opened it. */
  closeFolders(): void {
    byId("folder-picker").hidden = true;
    const b = byId<HTMLButtonElement>("chat-folder");
    b.setAttribute("aria-expanded", "false");
    b.focus();
  }

  /** Lists the folders in path ("" the home folder). */
  async showFolder(path: string, focusList = false): Promise<void> {
    const note = byId("folder-note");
    note.dataset.state = "";
    note.textContent = "";
    try {
      const l = await this.api.folders(path || undefined);
      this.folderPath = l.path;
      byId("folder-path").textContent = placeName(l.path, l.home);
      const up = byId<HTMLButtonElement>("folder-up");
      up.disabled = l.parent === "";
      up.dataset.parent = l.parent;
      const list = byId("folders");
      list.replaceChildren();
      if (l.folders.length === 0) list.append(el("li", { className: "empty" }, "No folders inside this one."));
      for (const f of l.folders) {
        const b = el("button", { type: "button" }, f.name);
        b.setAttribute("aria-label", `Open ${f.name}`);
        b.dataset.path = f.path;
        b.addEventListener("click", () => void this.showFolder(f.path, true));
        list.append(el("li", {}, b));
      }
      if (l.more) list.append(el("li", { className: "empty" }, "There are more folders than fit here; the rest are left out."));
      if (focusList) (list.querySelector<HTMLButtonElement>("button") ?? byId<HTMLButtonElement>("folder-start")).focus();
    } catch (e) {
      say(note, "error", "That folder cannot be shown. Choose another one.", reason(e));
    }
  }

  /** Starts a new chat in the folder the chooser shows. */
  async startInFolder(): Promise<void> {
    const start = byId<HTMLButtonElement>("folder-start");
    const note = byId("chat-note");
    await this.openChat("", "", note, start, this.folderPath);
    if (note.dataset.state === "ok") this.closeFolders();
  }

  // Delete asks on the page itself, like Remove; Escape takes it back.
  private async deleteChat(c: ChatInfo, title: string, note: HTMLElement, button: HTMLButtonElement): Promise<void> {
    if (button.dataset.armed !== "yes") {
      const where = c.dir ? `the folder ${folderName(c.dir)}` : "its folder";
      arm(button, note, "Yes, delete", title, `Delete “${title}”? Lets forgets this chat${c.window ? " and closes its window" : ""}. Files Claude made in ${where} stay. Press “Yes, delete” to go ahead, or Escape to keep it.`);
      return;
    }
    button.disabled = true;
    // Where the keyboard goes once the row is gone: the chat after it,
    // else the one before it, else "Start a new chat".
    const row = button.closest("li");
    const after = (row?.nextElementSibling as HTMLElement | null)?.dataset.chat;
    const before = (row?.previousElementSibling as HTMLElement | null)?.dataset.chat;
    try {
      await this.api.deleteChat(c.id);
      await this.refresh();
      const go = (id?: string) => (id ? document.querySelector<HTMLElement>(`#chats li[data-chat="${CSS.escape(id)}"] button.continue`) : null);
      focusFirst(go(after), go(before), byId("chat-new"), byId("chat-title"));
    } catch (e) {
      say(note, "error", `“${title}” could not be deleted. Check that Lets is running and try again.`, reason(e));
      button.disabled = false;
    }
  }

  private renderUniques(ov: Overview): void {
    const list = byId("uniques");
    list.replaceChildren();
    list.setAttribute("aria-busy", "false");
    const latest = new Map<string, string>();
    for (const s of appSessions(ov)) if (!latest.has(s.unique)) latest.set(s.unique, s.id);
    if (ov.uniques.length === 0) {
      list.append(el("li", { className: "empty" }, "No apps yet. Add one below."));
    }
    const open = new Map<string, number>();
    for (const w of ov.windows) open.set(w.unique, (open.get(w.unique) ?? 0) + 1);
    for (const u of ov.uniques) list.append(this.uniqueItem(u, latest.get(u.name), open.get(u.name) ?? 0));
    this.icons.keepOnly(ov.uniques.filter((u) => u.icon).map((u) => u.name));
  }

  private uniqueItem(u: HomeUnique, resume: string | undefined, windows: number): HTMLLIElement {
    const titleId = `u-${u.name}-title`;
    const note = el("p", { className: "open-note", id: `u-${u.name}-note` });
    note.setAttribute("role", "status");
    const noIcon = () => el("span", { className: "noicon" }, initial(u.title));
    const icon = u.icon ? this.icons.img(u.name, `${u.version} ${u.source}`, noIcon) : noIcon();
    icon.setAttribute("aria-hidden", "true");
    const open = el("button", { type: "button", className: "open" }, "Open");
    open.setAttribute("aria-describedby", titleId);
    open.dataset.unique = u.name;
    open.dataset.focusKey = `open:${u.name}`;
    open.addEventListener("click", () => void this.open(u, undefined, note, open));
    const actions = el("div", { className: "actions" }, open);
    if (resume) {
      const r = el("button", { type: "button", className: "quiet resume" }, "Continue where you left off");
      r.setAttribute("aria-describedby", titleId);
      r.dataset.focusKey = `resume:${u.name}`;
      r.addEventListener("click", () => void this.open(u, resume, note, r));
      actions.append(r);
    }
    if (!u.builtin) {
      const rm = el("button", { type: "button", className: "danger remove" }, "Remove");
      rm.setAttribute("aria-label", `Remove ${u.title}`);
      rm.dataset.focusKey = `remove:${u.name}`;
      rm.addEventListener("click", () => void this.remove(u, note, rm));
      actions.append(rm);
    }
    const meta = el("p", { className: "meta" }, u.builtin ? `version ${u.version} · comes with Lets` : `version ${u.version} · added by you`);
    if (!u.builtin && u.source) meta.append(details(`Added from ${u.source}`));
    const li = el(
      "li",
      { className: "unique" },
      icon,
      el("h3", { id: titleId }, u.title),
      el(
        "div",
        {},
        el("p", {}, u.description || "No description."),
        meta,
        ...(windows > 0 ? [el("p", { className: "windows" }, windows === 1 ? "1 window open" : `${windows} windows open`)] : []),
      ),
      actions,
      note,
    );
    li.dataset.unique = u.name;
    return li;
  }

  private async open(u: HomeUnique, resume: string | undefined, note: HTMLElement, button: HTMLButtonElement): Promise<void> {
    // aria-disabled, not disabled: a disabled button drops the keyboard focus.
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    note.dataset.state = "working";
    note.textContent = resume ? `Resuming ${u.title}…` : `Opening ${u.title}…`;
    try {
      const res = await this.api.open(u.name, resume);
      if (res.url) {
        // No native window here (a headless Lets): the browser shows it.
        // Not "noopener": with it window.open always answers null, and the
        // page could not tell a blocked pop-up from an opened tab.
        const w = window.open(res.url, "_blank");
        if (w) w.opener = null;
        note.textContent = w === null ? `${u.title} is ready: allow pop-ups for this page, then press Open again.` : `${u.title} opened in a new tab.`;
      } else {
        note.textContent = `${u.title} is opening in its own window.`;
      }
      note.dataset.state = "ok";
      note.dataset.window = res.window;
      await this.refresh(note);
    } catch (e) {
      say(note, "error", `${u.title} could not open. Check that Lets is running and try again.`, reason(e));
    } finally {
      button.removeAttribute("aria-disabled");
    }
  }

  // Remove asks on the page itself (a second press within a few seconds),
  // not with window.confirm, which a native webview may not show; Escape
  // takes the question back.
  private async remove(u: HomeUnique, note: HTMLElement, button: HTMLButtonElement): Promise<void> {
    if (button.dataset.armed !== "yes") {
      arm(button, note, "Yes, remove", u.title, `Remove ${u.title}? Its files are deleted; your saved work stays. Press “Yes, remove” to go ahead, or Escape to keep it.`);
      return;
    }
    button.disabled = true;
    const row = button.closest("li");
    const after = (row?.nextElementSibling as HTMLElement | null)?.dataset.unique;
    const before = (row?.previousElementSibling as HTMLElement | null)?.dataset.unique;
    try {
      await this.api.remove(u.name);
      await this.refresh();
      const go = (name?: string) => (name ? document.querySelector<HTMLElement>(`#uniques li[data-unique="${CSS.escape(name)}"] button.open`) : null);
      focusFirst(go(after), go(before), byId("install-source"), byId("uniques-title"));
    } catch (e) {
      say(note, "error", `${u.title} could not be removed. Check that Lets is running and try again.`, reason(e));
      button.disabled = false;
    }
  }

  private renderSessions(ov: Overview): void {
    const list = byId("sessions");
    list.replaceChildren();
    const saved = appSessions(ov);
    if (saved.length === 0) {
      list.append(el("li", { className: "empty" }, "Nothing saved yet. An app saves your work when you close its window."));
      return;
    }
    const titles = new Map(ov.uniques.map((u) => [u.name, u] as const));
    const now = Date.now();
    for (const s of saved.slice(0, 12)) {
      const u = titles.get(s.unique);
      const title = u?.title ?? s.unique;
      const note = el("p", { className: "open-note", id: `s-${s.id}-note` });
      note.setAttribute("role", "status");
      const what = el("span", { className: "what" }, el("strong", {}, title), s.summary ? ` — ${s.summary}` : "");
      const li = el("li", {}, what, el("span", { className: "when" }, formatWhen(s.ts, now)));
      if (u) {
        const b = el("button", { type: "button", className: "quiet" }, "Continue");
        b.setAttribute("aria-label", `Continue ${title}, saved ${formatWhen(s.ts, now)}`);
        b.dataset.focusKey = `session:${s.id}`;
        b.addEventListener("click", () => void this.open(u, s.id, note, b));
        li.append(b);
      }
      li.append(note);
      list.append(li);
    }
  }

  private renderDevices(ov: Overview): void {
    const list = byId("devices");
    list.replaceChildren();
    const words = phonesStatus(ov.devices.available, ov.devices.list.length, ov.actions?.pair_phone === true);
    if (words.text) list.append(el("li", { className: "empty" }, ...rich(words.text), ...(words.detail ? [details(words.detail, true)] : [])));
    for (const d of ov.devices.list) {
      const state = d.connected > 0 ? "connected" : "not connected";
      list.append(el("li", {}, el("strong", {}, d.name || "A phone"), el("span", { className: "when" }, `paired ${formatWhen(Date.parse(d.paired_at), Date.now())}, ${state}`)));
    }
  }

  async install(ev: SubmitEvent): Promise<void> {
    ev.preventDefault();
    if (this.busy) return;
    const input = byId<HTMLInputElement>("install-source");
    const button = byId<HTMLButtonElement>("install-button");
    const progress = byId<HTMLOListElement>("install-progress");
    const steps = byId<HTMLDetailsElement>("install-steps");
    const working = byId("install-working");
    const error = byId("install-error");
    const done = byId("install-done");
    error.hidden = true;
    done.hidden = true;
    const source = input.value.trim();
    if (!source) {
      input.setAttribute("aria-invalid", "true");
      error.hidden = false;
      error.replaceChildren("Type the app’s web address (it starts with https://) or the folder it is in on this computer first.");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    this.busy = true;
    button.disabled = true;
    button.textContent = "Adding…";
    progress.replaceChildren();
    steps.hidden = false;
    working.dataset.state = "working";
    working.textContent = "Adding the app…";
    try {
      const res = await this.api.install(source, (line) => progress.append(el("li", {}, line)));
      done.hidden = false;
      done.replaceChildren(`${res.title} ${res.version} is added to your apps.`, ...(res.warnings.length ? [details(`Note: ${res.warnings.join(" ")}`)] : []));
      input.value = "";
      await this.refresh();
    } catch (e) {
      error.hidden = false;
      input.setAttribute("aria-invalid", "true");
      const why = e instanceof Error ? e.message.replace(/^install failed: /i, "") : "";
      error.replaceChildren("It could not be added. Check the address or folder, and that Lets is running, then try again.", ...(why ? [details(why)] : []));
    } finally {
      working.dataset.state = "";
      working.textContent = "";
      this.busy = false;
      button.disabled = false;
      button.textContent = "Add";
    }
  }
}

/**
 * The saved work listed with the apps: a chat's own saves are left out,
 * as "Chat with Claude" lists each chat once already (#26).
 */
function appSessions(ov: Overview): Overview["sessions"] {
  if (!ov.chat?.available) return ov.sessions;
  return ov.sessions.filter((s) => s.unique !== chatApp);
}

/** The chat window's app (chatdriver.ChatUnique). */
const chatApp = "chat";

async function startHome(): Promise<void> {
  const api = new HomeAPI();
  const home = new Home(api);
  byId<HTMLFormElement>("install-form").addEventListener("submit", (ev) => void home.install(ev));
  const newChat = byId<HTMLButtonElement>("chat-new");
  newChat.addEventListener("click", () => void home.openChat("", "", byId("chat-note"), newChat));
  const chooser = byId<HTMLButtonElement>("chat-folder");
  chooser.addEventListener("click", () => (byId("folder-picker").hidden ? void home.openFolders() : home.closeFolders()));
  byId("folder-up").addEventListener("click", (ev) => {
    const parent = (ev.currentTarget as HTMLElement).dataset.parent;
    if (parent) void home.showFolder(parent, true);
  });
  byId("folder-start").addEventListener("click", () => void home.startInFolder());
  byId("folder-cancel").addEventListener("click", () => home.closeFolders());
  byId("folder-picker").addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      home.closeFolders();
    }
  });
  // The key leaves the address when it is claimed; the welcome flag too.
  const welcome = wantsWelcome(window.location.hash);
  let ready = false;
  try {
    ready = await api.start(window.location, window.history, session());
  } catch (e) {
    home.lock(
      e instanceof HostError && e.status === 401
        ? "This link to Home was already used, or it is more than two minutes old. Choose Home in the Lets tray menu, or start Lets again from your apps menu, for a fresh one."
        : "Lets could not open Home just now. Check that it is running, then open Home again (or start Lets again from your apps menu).",
    );
    return;
  }
  if (!ready) {
    home.lock();
    return;
  }
  home.waiting = new WaitingCard((method, path, body) => api.call(method, path, body), byId("chat"));
  await home.refresh();
  home.waiting.watch();
  new TrustedCard((method, path, body) => api.call(method, path, body), byId("chat")).watch();
  if (welcome) {
    const card = welcomeCard({
      chat: (note, button) => {
        if (byId("chat").dataset.available === "yes") void home.openChat("", "", note, button);
        else focusHeading("chat-title");
      },
      pair: () => focusHeading("devices-title"),
      setupClaude: () => focusHeading("claude-title"),
      closed: () => {
        if (!focusFirst(byId("chat-new"), document.querySelector<HTMLElement>("#uniques button.open"))) focusHeading("title");
      },
    });
    byId("home").prepend(card);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") void home.refresh();
  });
  setInterval(() => {
    if (document.visibilityState === "visible") void home.refresh();
  }, 15_000);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    byId("refresh").addEventListener("click", () => void refreshHealth());
    void refreshHealth();
    setInterval(() => void refreshHealth(false), 30_000);
    void startHome();
  });
}

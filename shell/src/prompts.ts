// Host-chrome prompts (spec lip-1 §1.5, §10; issue #11): the runner's allow
// dialog and the approval card for windows bound to a Claude session. They
// are drawn by the shell page (origin A), which the unique's frame (origin
// U) cannot script, and answered only over the shell's own channel with
// shell.answer. One prompt shows at a time; later ones wait their turn. The
// host takes a prompt down unanswered with shell.dismiss (the approval was
// answered from a pad, a phone or another window).
//
// Arming: for a short moment after a prompt appears, pointer clicks on the
// allowing buttons do nothing, so a click aimed at something that was under
// the pointer cannot say yes. The keyboard is not delayed: focus starts on
// Deny, so a stray Enter or Space can only refuse.

import { button, h } from "./dom";

export const ARM_MS = 600;
/**
 * Prompts waiting behind the one shown. More are refused at once: a unique
 * that asks again and again must not bury the person in dialogs until a
 * tired click says yes.
 */
export const QUEUE_MAX = 3;

export interface PromptRequest {
  id: string;
  kind?: string;
  title?: string;
  language?: string;
  question?: string;
  tool?: string;
  summary?: string;
  /** Claude's own words for the tool use ("Run the tests"), when any. */
  about?: string;
  /** The Claude session's label (its project folder), for approval cards. */
  label?: string;
  /** Who asks on an approval card: "Claude" (the default) or "Codex". */
  agent?: string;
}

interface Choice {
  choice: string;
  label: string;
  allows: boolean;
}

/** What a prompt shows. */
export interface PromptView {
  kind: string;
  /** What will happen, in plain words: the dialog's name. */
  heading: string;
  /** Why it matters and what the choices do. */
  detail: string;
  /** A short plain tag above the heading (decorative). */
  tag: string;
  /** The raw request (tool, command, file path, JSON), behind "Details". */
  details: { label: string; value: string }[];
  /** Buttons, Deny first. */
  choices: Choice[];
}

/**
 * What a prompt shows (issue #26): what will happen in plain words first
 * ("Claude wants to run a command", "Board wants to run a Python program
 * on this computer"), with the raw command, path or JSON one click away
 * behind "Details".
 */
export function promptView(r: PromptRequest): PromptView {
  if (r.kind === "approval") {
    const tool = oneLine(r.tool ?? "", 80);
    const summary = oneLine(r.summary ?? "", 200);
    const plain = approvalWords(tool, summary, oneLine(r.label ?? "", 64), oneLine(r.about ?? "", 120), oneLine(r.agent ?? "", 40));
    const details: PromptView["details"] = [];
    if (tool) details.push({ label: "Tool", value: tool });
    if (summary) details.push({ label: plain.what, value: summary });
    return {
      kind: "approval",
      heading: plain.heading,
      detail: plain.detail,
      tag: plain.tag,
      details,
      choices: [
        { choice: "deny", label: "Deny", allows: false },
        { choice: "allow", label: "Allow", allows: true },
      ],
    };
  }
  const title = appName(r.title ?? "");
  const lang = r.language ?? "";
  const program = programWords(lang);
  // The host's own question (r.question) is not shown: it names the
  // language the way a developer would.
  return {
    kind: "exec",
    heading: `${title} wants to run ${program} on this computer`,
    detail: `It could then read and change your files, like a program you start yourself. Allow it only if you trust ${title}. “Always allow” lasts until ${title} is updated.`,
    tag: title,
    details: lang ? [{ label: "Language", value: lang }] : [],
    choices: [
      { choice: "deny", label: "Deny", allows: false },
      { choice: "once", label: "Allow once", allows: true },
      { choice: "always", label: "Always allow", allows: true },
    ],
  };
}

/**
 * How a person calls the app: its title up to a dash or colon ("Hello"
 * for "Hello — say hi to Claude"), "This app" when it has none.
 */
export function appName(title: string): string {
  const t = oneLine(title, 80);
  const short = t.split(/\s[—–-]\s|:\s/)[0].trim();
  return short || t || "This app";
}

/** "a Python program" for python, and so on. */
function programWords(lang: string): string {
  switch (lang.toLowerCase()) {
    case "shell":
    case "sh":
    case "bash":
      return "commands";
    case "python":
      return "a Python program";
    case "javascript":
    case "node":
      return "a JavaScript program";
    default:
      return "a program";
  }
}

/**
 * The last part of a file path and the folder it is in: "notes.txt" and
 * "Lets" for /home/me/Lets/notes.txt. folder is "" for a bare name.
 */
export function fileAndFolder(p: string): { file: string; folder: string } {
  const parts = p.trim().replace(/[\\/]+$/, "").split(/[\\/]+/).filter((x) => x !== "" && x !== "." && x !== "~");
  const file = parts.pop() ?? "";
  const folder = parts.pop() ?? "";
  return { file, folder };
}

/** Whether s looks like one file path (not a sentence or JSON). */
function looksLikePath(s: string): boolean {
  if (s === "" || s.startsWith("{") || s.startsWith("[")) return false;
  return /^(\/|~\/|[A-Za-z]:[\\/])/.test(s) || !/\s/.test(s);
}

/**
 * The plain sentence for a Claude tool use: heading (what will happen),
 * detail (what to weigh), tag (a one-word kind) and what the raw summary
 * is (its label under Details).
 */
export function approvalWords(tool: string, summary: string, label: string, about = "", agent = ""): { heading: string; detail: string; tag: string; what: string } {
  const who = agent || "Claude";
  const inFolder = (f: string) => (f ? ` in ${f}` : label ? ` in ${label}` : "");
  const file = (verb: string, tag: string, detail: string) => {
    if (looksLikePath(summary)) {
      const { file: name, folder } = fileAndFolder(summary);
      if (name) return { heading: `${who} wants to ${verb} the file ${name}${inFolder(folder)}`, detail, tag, what: "File" };
    }
    return { heading: `${who} wants to ${verb} a file${inFolder("")}`, detail, tag, what: `What ${who} sent` };
  };
  const safe = `Deny is always safe: ${who} will ask again or find another way.`;
  // Claude's own words, after a colon: "…a command: Run the tests".
  const said = about.replace(/[.\s]+$/, "");
  const withSaid = (heading: string) => (said ? `${heading}: ${said}` : heading);
  switch (tool) {
    case "Bash":
      return {
        heading: withSaid(label ? `${who} wants to run a command in ${label}` : `${who} wants to run a command on this computer`),
        detail: `A command can change or delete files. Allow it if it is part of what you asked for. ${safe}`,
        tag: "Command",
        what: "Command",
      };
    case "Edit":
    case "MultiEdit":
    case "NotebookEdit":
      return file("change", "Change a file", `Allow it if you asked ${who} for this change. ${safe}`);
    case "Write":
      return file("write", "Write a file", `Writing replaces what the file held before, or makes a new one. ${safe}`);
    case "Read":
      return file("read", "Read a file", `${who} would see what is in the file. ${safe}`);
    case "Glob":
    case "Grep":
    case "LS":
      return { heading: `${who} wants to look through your files${inFolder("")}`, detail: `${who} would see the names and contents it finds. ${safe}`, tag: "Search files", what: `What ${who} looks for` };
    case "WebFetch": {
      const site = /https?:\/\/([^/\s"'?#]+)/i.exec(summary)?.[1];
      return { heading: site ? `${who} wants to open a web page on ${site}` : `${who} wants to open a web page`, detail: `${who} would read the page. ${safe}`, tag: "Web", what: `What ${who} sent` };
    }
    case "WebSearch":
      return { heading: `${who} wants to search the web`, detail: `${who} would read what the search finds. ${safe}`, tag: "Web", what: `What ${who} sent` };
    case "Task":
    case "Agent":
      return { heading: withSaid(`${who} wants to start a helper for part of the work`), detail: `The helper works with the same permissions and asks you the same way. ${safe}`, tag: "Helper", what: `What ${who} sent` };
    case "TodoWrite":
      return { heading: `${who} wants to update its to-do list`, detail: `This only changes ${who}'s own notes. ${safe}`, tag: "Notes", what: `What ${who} sent` };
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(tool);
  if (mcp) {
    const words = (s: string) => s.replace(/[_-]+/g, " ").trim();
    return { heading: `${who} wants to use “${words(mcp[2])}” from ${words(mcp[1])}`, detail: `Allow it if you expected this. ${safe}`, tag: "Tool", what: `What ${who} sent` };
  }
  if (!tool) return { heading: `${who} wants to do something`, detail: `${who} did not say what. ${safe}`, tag: who, what: `What ${who} sent` };
  return { heading: `${who} wants to use a tool called “${tool}”`, detail: `Allow it if you expected this. ${safe}`, tag: "Tool", what: `What ${who} sent` };
}

/** Collapses whitespace and cuts text to max characters with an ellipsis. */
export function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The order of prompts: one shown, at most QUEUE_MAX waiting behind it. It
 * holds no DOM, so it is tested on its own.
 */
export class PromptQueue {
  private waiting: PromptRequest[] = [];
  private shown: PromptRequest | null = null;

  /** The prompt on screen, or null. */
  get current(): PromptRequest | null {
    return this.shown;
  }

  /** The ids waiting behind the current prompt, in order. */
  get queued(): string[] {
    return this.waiting.map((r) => r.id);
  }

  /** "show": r is current now; "wait": it waits its turn; "refuse": too many wait already. */
  offer(r: PromptRequest): "show" | "wait" | "refuse" {
    if (!this.shown) {
      this.shown = r;
      return "show";
    }
    if (this.waiting.length >= QUEUE_MAX) return "refuse";
    this.waiting.push(r);
    return "wait";
  }

  /** Ends the current prompt and returns the next one to show, or null. */
  advance(): PromptRequest | null {
    this.shown = this.waiting.shift() ?? null;
    return this.shown;
  }

  /**
   * Takes prompt id away without an answer (the host's shell.dismiss):
   * "current" when it is on screen (take it down, then advance), "waiting"
   * when it was dropped from the queue, "none" when it is not here.
   */
  dismiss(id: string): "current" | "waiting" | "none" {
    if (this.shown?.id === id) return "current";
    const i = this.waiting.findIndex((r) => r.id === id);
    if (i < 0) return "none";
    this.waiting.splice(i, 1);
    return "waiting";
  }
}

export class Prompts {
  private readonly q = new PromptQueue();
  /** Takes the prompt on screen down without answering it. */
  private takeDown: (() => void) | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly answer: (id: string, choice: string) => void,
    private readonly armMs = ARM_MS,
  ) {}

  ask(r: PromptRequest): void {
    if (!r || typeof r.id !== "string") return;
    switch (this.q.offer(r)) {
      case "refuse":
        this.answer(r.id, "deny");
        return;
      case "show":
        this.show(r);
        return;
    }
  }

  /**
   * Removes prompt id without an answer: it was answered elsewhere (a pad,
   * a phone, another window) or is no longer asked. Focus goes back to
   * where it was before the prompt, or to the next prompt.
   */
  dismiss(id: string): void {
    if (typeof id !== "string") return;
    if (this.q.dismiss(id) === "current") this.takeDown?.();
  }

  private show(r: PromptRequest): void {
    const v = promptView(r);
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dlg = h("dialog", { class: `prompt k-${v.kind}`, "aria-labelledby": "prompt-q", "aria-describedby": "prompt-why", "data-armed": "false", "data-id": r.id });
    const parts: HTMLElement[] = [];
    if (v.tag) parts.push(h("p", { class: "prompt-tool", text: v.tag, "aria-hidden": "true" }));
    parts.push(h("h2", { id: "prompt-q", text: v.heading }), h("p", { id: "prompt-why", text: v.detail }));
    if (v.details.length > 0) {
      // The raw request, one click away: for whoever wants to check it.
      const list = h("dl", { class: "prompt-raw" });
      for (const d of v.details) list.append(h("dt", { text: d.label }), h("dd", { text: d.value }));
      parts.push(h("details", { class: "prompt-details" }, h("summary", { text: "Details" }), list));
    }
    const row = h("div", { class: "actions" });
    let done = false;
    let armTimer: ReturnType<typeof setTimeout> | undefined;
    const close = () => {
      if (done) return false;
      done = true;
      this.takeDown = null;
      clearTimeout(armTimer);
      dlg.close();
      dlg.remove();
      const next = this.q.advance();
      if (next) this.show(next);
      else if (before?.isConnected && (document.activeElement === null || document.activeElement === document.body || document.activeElement === before)) {
        // Closing a modal dialog may already have put the focus back on
        // before, yet left the caret in the removed card: keys typed into
        // a text box would then go nowhere. Focusing it afresh moves both.
        if (document.activeElement === before) before.blur();
        before.focus({ preventScroll: true });
      }
      return true;
    };
    const finish = (choice: string) => {
      if (done) return;
      this.answer(r.id, choice);
      close();
    };
    let armed = false;
    for (const c of v.choices) {
      const b = button(c.label, c.allows ? "primary" : "secondary");
      b.dataset.choice = c.choice;
      b.addEventListener("click", (ev) => {
        // detail is 0 for a click made with Enter or Space.
        if (c.allows && !armed && ev.detail > 0) {
          ev.preventDefault();
          return;
        }
        finish(c.choice);
      });
      row.append(b);
    }
    dlg.append(...parts, row);
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish("deny");
    });
    this.takeDown = () => void close();
    this.host.append(dlg);
    dlg.showModal();
    (row.querySelector('[data-choice="deny"]') as HTMLButtonElement).focus();
    armTimer = setTimeout(() => {
      armed = true;
      dlg.dataset.armed = "true";
    }, this.armMs);
  }
}

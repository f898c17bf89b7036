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
  /** The Claude session's label (its project folder), for approval cards. */
  label?: string;
}

interface Choice {
  choice: string;
  label: string;
  allows: boolean;
}

/** What a prompt shows: its heading, explanation and buttons (deny first). */
export function promptView(r: PromptRequest): { heading: string; detail: string; tool?: string; choices: Choice[]; kind: string } {
  if (r.kind === "approval") {
    const tool = oneLine(r.tool ?? "a tool", 80);
    return {
      kind: "approval",
      heading: `Allow Claude to use ${tool}?`,
      detail: oneLine(r.summary ?? "", 200) || "Claude did not say what it wants to do.",
      tool,
      choices: [
        { choice: "deny", label: "Deny", allows: false },
        { choice: "allow", label: "Allow", allows: true },
      ],
    };
  }
  const title = r.title ?? "This unique";
  const lang = r.language ?? "code";
  return {
    kind: "exec",
    heading: r.question || `Allow ${title} to run ${lang} on this computer?`,
    detail: `${title} wants to run ${lang} code with your user's rights. Allow it only if you trust this unique. “Always allow” lasts until ${title} is updated.`,
    tool: lang,
    choices: [
      { choice: "deny", label: "Deny", allows: false },
      { choice: "once", label: "Allow once", allows: true },
      { choice: "always", label: "Always allow", allows: true },
    ],
  };
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
    if (v.tool) parts.push(h("p", { class: "prompt-tool", text: v.tool, "aria-hidden": "true" }));
    parts.push(h("h2", { id: "prompt-q", text: v.heading }), h("p", { id: "prompt-why", text: v.detail }));
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

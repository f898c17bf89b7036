// Host-chrome prompts (spec lip-1 §1.5, §10; issue #11): the runner's allow
// dialog and the approval card for windows bound to a Claude session. They
// are drawn by the shell page (origin A), which the unique's frame (origin
// U) cannot script, and answered only over the shell's own channel with
// shell.answer. One prompt shows at a time; later ones wait their turn.
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

export class Prompts {
  private queue: PromptRequest[] = [];
  private showing = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly answer: (id: string, choice: string) => void,
    private readonly armMs = ARM_MS,
  ) {}

  ask(r: PromptRequest): void {
    if (!r || typeof r.id !== "string") return;
    if (this.showing && this.queue.length >= QUEUE_MAX) {
      this.answer(r.id, "deny");
      return;
    }
    this.queue.push(r);
    if (!this.showing) this.next();
  }

  private next(): void {
    const r = this.queue.shift();
    if (!r) {
      this.showing = false;
      return;
    }
    this.showing = true;
    const v = promptView(r);
    const dlg = h("dialog", { class: `prompt k-${v.kind}`, "aria-labelledby": "prompt-q", "aria-describedby": "prompt-why", "data-armed": "false" });
    const parts: HTMLElement[] = [];
    if (v.tool) parts.push(h("p", { class: "prompt-tool", text: v.tool, "aria-hidden": "true" }));
    parts.push(h("h2", { id: "prompt-q", text: v.heading }), h("p", { id: "prompt-why", text: v.detail }));
    const row = h("div", { class: "actions" });
    let answered = false;
    const finish = (choice: string) => {
      if (answered) return;
      answered = true;
      this.answer(r.id, choice);
      dlg.close();
      dlg.remove();
      this.next();
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
    this.host.append(dlg);
    dlg.showModal();
    (row.querySelector('[data-choice="deny"]') as HTMLButtonElement).focus();
    setTimeout(() => {
      armed = true;
      dlg.dataset.armed = "true";
    }, this.armMs);
  }
}

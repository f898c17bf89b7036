// The Claude card's Install Claude Code button: it installs Claude Code
// into Lets' own folder (POST /home/api/install-claude, streamed), with a
// progress bar, Cancel, and the error in plain words with Try again.

/** One progress line of the install. percent is -1 when it cannot be told. */
export interface InstallProgress {
  step: string;
  percent: number;
  text: string;
}

export interface ClaudeInstalled {
  path: string;
  version: string;
}

/** Installs, reporting progress; rejects with the reason (an AbortError when cancelled). */
export type InstallFn = (progress: (p: InstallProgress) => void, signal: AbortSignal) => Promise<ClaudeInstalled>;

function make<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/** Reads an NDJSON install answer: progress lines, then done or error. */
export async function readInstall(res: Response, progress: (p: InstallProgress) => void): Promise<ClaudeInstalled> {
  if (!res.body) throw new Error("This browser cannot read the install's progress.");
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (value) buf += dec.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line) as { progress?: InstallProgress; done?: ClaudeInstalled; error?: { code: string; message: string } };
      if (msg.progress) progress(msg.progress);
      if (msg.done) return msg.done;
      if (msg.error) throw new Error(msg.error.message);
    }
    if (done) break;
  }
  throw new Error("The install stopped before it said how it went. Check that Lets is still running and try again.");
}

/** The button, its progress bar, Cancel and note, made once after #claude. */
export class ClaudeInstall {
  private controller: AbortController | null = null;
  private readonly row: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly cancel: HTMLButtonElement;
  private readonly bar: HTMLProgressElement;
  private readonly note: HTMLElement;

  constructor(
    private readonly install: InstallFn,
    private readonly done: () => Promise<void>,
  ) {
    this.button = make("button", { type: "button", id: "install-claude" }, "Install Claude Code");
    this.button.dataset.focusKey = "action:install-claude";
    this.button.addEventListener("click", () => void this.run());
    this.cancel = make("button", { type: "button", id: "install-claude-cancel", className: "quiet", hidden: true }, "Cancel");
    this.cancel.addEventListener("click", () => this.controller?.abort());
    this.bar = make("progress", { id: "install-claude-progress", max: 100, hidden: true });
    this.bar.setAttribute("aria-label", "Installing Claude Code");
    this.note = make("p", { className: "open-note", id: "install-claude-note" });
    this.note.setAttribute("role", "status");
    this.button.setAttribute("aria-describedby", this.note.id);
    this.row = make("div", { className: "row", id: "install-claude-row" }, this.button, this.cancel);
    const claude = document.getElementById("claude");
    claude?.after(this.row, this.bar, this.note);
  }

  /** Shows the button only while Claude Code is missing and Lets can install it. */
  render(c: { cli: boolean; installable?: boolean }): void {
    const running = this.controller !== null;
    const hidden = !running && (c.cli || c.installable !== true);
    this.row.hidden = hidden;
    this.row.style.display = hidden ? "none" : "";
    if (hidden && this.note.dataset.state !== "ok") this.note.textContent = "";
  }

  private async run(): Promise<void> {
    if (this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    this.button.disabled = true;
    this.button.textContent = "Installing…";
    this.cancel.hidden = false;
    this.bar.hidden = false;
    this.bar.removeAttribute("value");
    this.note.dataset.state = "working";
    this.note.textContent = "Getting ready to install Claude Code…";
    try {
      const res = await this.install((p) => {
        if (p.percent >= 0) this.bar.value = p.percent;
        else this.bar.removeAttribute("value");
        if (p.text) this.note.textContent = p.text;
      }, controller.signal);
      this.note.dataset.state = "ok";
      this.note.textContent = `Claude Code ${res.version} is installed.`;
      this.button.textContent = "Install Claude Code";
    } catch (e) {
      if (controller.signal.aborted) {
        this.note.dataset.state = "";
        this.note.textContent = "Stopped installing. Nothing was changed.";
        this.button.textContent = "Install Claude Code";
      } else {
        this.note.dataset.state = "error";
        this.note.textContent = e instanceof Error ? `Claude Code could not be installed. ${e.message}` : "Claude Code could not be installed. Check that Lets is running and try again.";
        this.button.textContent = "Try again";
      }
    }
    // Cancel hides, and a done install hides the row: the keyboard must
    // not fall to the page's body (#26).
    const active = document.activeElement;
    const hadFocus = active === null || active === document.body || this.row.contains(active);
    this.controller = null;
    this.button.disabled = false;
    this.cancel.hidden = true;
    this.bar.hidden = true;
    if (hadFocus) this.button.focus();
    await this.done();
    if (hadFocus && this.button.getClientRects().length === 0) {
      const next = [document.getElementById("setup-claude"), document.getElementById("claude-title")].find((e) => e && e.getClientRects().length > 0);
      if (next) {
        if (next.tagName === "H2" && !next.hasAttribute("tabindex")) next.tabIndex = -1;
        next.focus();
      }
    }
  }
}

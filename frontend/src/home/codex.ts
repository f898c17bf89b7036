// The Codex card (issue #25): whether Codex is installed and whether it
// has Lets' tools (`lets setup codex`), with "Set up Codex" and "Remove
// from Codex" buttons when this Lets can run the set-up itself.

/** Codex's state, as the overview says it (backend/host/home_codex.go). */
export interface CodexSetup {
  cli: boolean;
  cli_path?: string;
  /** config.toml has the block `lets setup codex` writes. */
  set_up: boolean;
  /** It is there but no longer right: set up again. */
  stale?: boolean;
  config_path: string;
  /** Why the config cannot be set up as it is, and what to do. */
  problem?: string;
}

/** How a set-up or a removal went, in the person's words. */
export interface CodexResult {
  done: boolean;
  text: string;
  detail: string;
}

/** The card's words: state "ready", "partial" or "off" (Codex not used here), text, and a command or path for "Details". */
export function codexStatus(c: CodexSetup, canSetUp = false): { state: "ready" | "partial" | "off"; text: string; detail: string } {
  // As for Claude: never a tray menu (#21); without the page's own
  // button, the terminal command is behind "Details".
  const next = canSetUp ? "press “Set up Codex” below" : "run the command under “Details” in a terminal";
  const command = canSetUp ? "" : "lets setup codex";
  const install = "npm install -g @openai/codex";
  if (c.problem) {
    return { state: "partial", text: `Not yet: ${c.problem}`, detail: c.config_path };
  }
  if (c.set_up && c.stale) {
    return { state: "partial", text: `Codex's settings point to Lets in a way that no longer works (Lets moved, or was updated). To put it right, ${next}.`, detail: command };
  }
  if (c.set_up && c.cli) {
    return { state: "ready", text: "Codex is set up: it can use Lets' tools. Start it with `lets codex` in a terminal to follow it on the pads and phones.", detail: "" };
  }
  if (c.set_up) {
    return { state: "partial", text: `Lets' tools are in Codex's settings, but Codex itself is not installed on this computer. To install it, run \`${install}\` in a terminal.`, detail: "" };
  }
  if (c.cli) {
    return { state: "partial", text: `Not yet: Codex is installed, but it does not know Lets' tools yet. To connect them, ${next}.`, detail: command };
  }
  return {
    state: "off",
    text: `Codex (OpenAI's coding agent) is not installed on this computer. If you use it, install it with \`${install}\` in a terminal, then ${next}.`,
    detail: command,
  };
}

function make<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/** Words with `code` parts as <code>. */
function rich(text: string): (Node | string)[] {
  return text.split("`").map((part, i) => (i % 2 === 1 ? make("code", {}, part) : part));
}

function hide(node: HTMLElement, hidden: boolean): void {
  node.hidden = hidden;
  node.style.display = hidden ? "none" : "";
}

/** The Codex card's words, its two buttons and their note, made once. */
export class CodexCard {
  private readonly status: HTMLElement;
  private readonly row: HTMLElement;
  private readonly setup: HTMLButtonElement;
  private readonly remove: HTMLButtonElement;
  private readonly note: HTMLElement;
  private busy = false;

  constructor(
    private readonly run: (remove: boolean) => Promise<CodexResult>,
    private readonly done: () => Promise<void>,
  ) {
    const status = document.getElementById("codex");
    if (!status) throw new Error("home page is missing #codex");
    this.status = status;
    this.setup = make("button", { type: "button", id: "setup-codex" }, "Set up Codex");
    this.setup.dataset.focusKey = "action:setup-codex";
    this.setup.addEventListener("click", () => void this.act(false));
    this.remove = make("button", { type: "button", id: "remove-codex", className: "quiet" }, "Remove from Codex");
    this.remove.dataset.focusKey = "action:remove-codex";
    this.remove.addEventListener("click", () => void this.act(true));
    this.note = make("p", { className: "open-note", id: "setup-codex-note" });
    this.note.setAttribute("role", "status");
    this.setup.setAttribute("aria-describedby", this.note.id);
    this.remove.setAttribute("aria-describedby", this.note.id);
    this.row = make("div", { className: "row", id: "setup-codex-row" }, this.setup, this.remove);
    this.status.after(this.row, this.note);
  }

  /** Draws the card; canSetUp: this Lets can run the set-up from here. */
  render(c: CodexSetup, canSetUp: boolean): void {
    const s = codexStatus(c, canSetUp);
    this.status.dataset.state = s.state;
    const kids: (Node | string)[] = rich(s.text);
    if (s.detail) {
      const code = s.detail.startsWith("/") ? make("p", {}, s.detail) : make("code", {}, s.detail);
      kids.push(make("details", { className: "more" }, make("summary", {}, "Details"), code));
    }
    this.status.replaceChildren(...kids);
    const showSetup = canSetUp && (!c.set_up || c.stale === true);
    const showRemove = canSetUp && c.set_up;
    hide(this.setup, !showSetup);
    hide(this.remove, !showRemove);
    hide(this.row, !showSetup && !showRemove);
  }

  private async act(remove: boolean): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const button = remove ? this.remove : this.setup;
    const label = button.textContent ?? "";
    this.setup.disabled = this.remove.disabled = true;
    button.textContent = remove ? "Removing…" : "Setting up…";
    this.note.dataset.state = "";
    this.note.textContent = remove ? "Taking Lets' tools out of Codex's settings…" : "Giving Codex Lets' tools…";
    try {
      const res = await this.run(remove);
      this.note.dataset.state = res.done ? "ok" : "error";
      if (res.done || !res.detail) this.note.replaceChildren(...rich(res.detail ? `${res.text}. ${res.detail}.` : `${res.text}.`));
      // What went wrong in Lets' own words (a file, a command) is one
      // click away, behind "Details" (#26).
      else this.note.replaceChildren(`${res.text}. `, make("details", { className: "more" }, make("summary", {}, "Details"), make("p", {}, res.detail)));
    } catch (e) {
      this.note.dataset.state = "error";
      const why = e instanceof Error && e.message ? ` (${e.message})` : "";
      this.note.textContent = `${remove ? "Lets' tools could not be taken out of Codex" : "Codex could not be set up"}. Check that Lets is running and try again${why}.`;
    }
    button.textContent = label;
    this.setup.disabled = this.remove.disabled = false;
    this.busy = false;
    const hadFocus = document.activeElement === null || document.activeElement === document.body || document.activeElement === button;
    await this.done();
    // The pressed button may go (set up, Set up Codex hides): the
    // keyboard stays in the card, on the other button or the heading.
    if (hadFocus && button.getClientRects().length === 0) {
      const other = remove ? this.setup : this.remove;
      const heading = document.getElementById("codex-title");
      if (other.getClientRects().length > 0) other.focus();
      else if (heading) {
        if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1;
        heading.focus();
      }
    }
  }
}

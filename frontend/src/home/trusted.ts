// The home window's "Trusted folders" card: the folders whose own Claude
// settings the person allowed in a chat window (GET /home/api/trusted),
// each with a Revoke button (DELETE /home/api/trusted). Those settings can
// run programs, so taking the trust back is one press here. The card shows
// only while some folder is trusted.

/** One trusted folder of GET /home/api/trusted. */
export interface TrustedFolder {
  path: string;
  /** RFC 3339 */
  trusted: string;
}

/** The home page's authenticated call (HomeAPI.call): throws on a failed answer. */
export type HomeCall = (method: string, path: string, body?: unknown) => Promise<Response>;

const route = "/home/api/trusted";

/** The folder's last name, for a short label ("/" for the root). */
export function folderName(path: string): string {
  const parts = path.split("/").filter((p) => p !== "");
  return parts.length > 0 ? parts[parts.length - 1] : "/";
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/** The trusted folders card, placed after the element `after`. */
export class TrustedCard {
  private readonly card: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly note: HTMLElement;
  private shown = "";

  constructor(
    private readonly call: HomeCall,
    after: HTMLElement,
  ) {
    const title = el("h2", { id: "trusted-title", tabIndex: -1 }, "Trusted folders");
    const lead = el(
      "p",
      { id: "trusted-lead", className: "lead" },
      "Claude uses these folders’ own settings, which can run programs on this computer. If you are no longer sure about one, stop trusting it: a new chat there will ask you again.",
    );
    this.list = el("ul", { id: "trusted-list", className: "chats" });
    this.list.setAttribute("aria-labelledby", "trusted-title");
    this.note = el("p", { id: "trusted-note", className: "open-note" });
    this.note.setAttribute("role", "status");
    this.card = el("section", { id: "trusted", className: "card" }, title, lead, this.list, this.note);
    this.card.setAttribute("aria-labelledby", "trusted-title");
    this.card.dataset.needs = "access";
    this.show(false);
    after.after(this.card);
  }

  /** Reads the list now, and again whenever the page is looked at and every 15 s while it is. */
  watch(): this {
    void this.refresh();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") void this.refresh();
    });
    setInterval(() => {
      if (document.visibilityState === "visible") void this.refresh();
    }, 15_000);
    return this;
  }

  /** Shows or hides the card (its display style wins over a card's own). */
  private show(on: boolean): void {
    this.card.hidden = !on;
    this.card.style.display = on ? "" : "none";
  }

  /** Reads the list again and redraws it when it changed. */
  async refresh(): Promise<void> {
    let folders: TrustedFolder[];
    try {
      const res = await this.call("GET", route);
      folders = ((await res.json()) as { folders: TrustedFolder[] }).folders ?? [];
    } catch {
      // An older Lets, or none running: the card stays as it was.
      return;
    }
    this.card.dataset.loaded = "yes";
    const key = JSON.stringify(folders);
    if (key === this.shown) return;
    this.shown = key;
    const focusKey = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    this.list.replaceChildren(...folders.map((f) => this.item(f)));
    this.show(folders.length > 0 || this.note.textContent !== "");
    if (focusKey) this.list.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus();
  }

  private item(f: TrustedFolder): HTMLLIElement {
    const name = folderName(f.path);
    const revoke = el("button", { type: "button", className: "danger revoke" }, "Stop trusting");
    revoke.setAttribute("aria-label", `Stop trusting ${name}`);
    revoke.dataset.focusKey = `trusted:${f.path}`;
    revoke.dataset.path = f.path;
    revoke.addEventListener("click", () => void this.revoke(f.path, revoke));
    const li = el(
      "li",
      {},
      // The full path stays behind "Details" (#26): the name says which.
      el("span", { className: "what" }, el("strong", {}, name), el("details", { className: "more" }, el("summary", {}, "Details"), el("p", {}, f.path))),
      el("span", { className: "actions" }, revoke),
    );
    li.dataset.trusted = f.path;
    return li;
  }

  private async revoke(path: string, button: HTMLButtonElement): Promise<void> {
    if (button.disabled) return;
    button.disabled = true;
    this.note.dataset.state = "";
    try {
      await this.call("DELETE", route, { path });
      this.note.textContent = `${folderName(path)} is no longer trusted. Its own settings stay off; a new chat there will ask you again.`;
      await this.refresh();
      // The button is gone: keep the keyboard in the card.
      const next = this.list.querySelector<HTMLButtonElement>("button.revoke");
      (next ?? this.card.querySelector<HTMLElement>("#trusted-title"))?.focus();
    } catch (e) {
      this.note.dataset.state = "error";
      this.note.replaceChildren(
        "Lets could not stop trusting it. Check that Lets is running and try again.",
        ...(e instanceof Error ? [el("details", { className: "more" }, el("summary", {}, "Details"), el("p", {}, e.message))] : []),
      );
      button.disabled = false;
    }
  }
}

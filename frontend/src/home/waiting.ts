// "Waiting for you": windows Claude opened that nothing could show (a
// headless Lets, or no browser it could start). Whoever opens a window
// first becomes the person at it, so Lets never gives its link to Claude
// or any other program (issue #23); it keeps the window here, where only
// the person's own home page can open it.

/** One waiting window of GET /home/api/waiting (and the overview's "waiting"). */
export interface WaitingWindow {
  window: string;
  unique: string;
  title: string;
  /** RFC 3339 */
  opened_at: string;
}

/** A call to the host with the home token (HomeAPI.call). */
export type HomeCall = (method: string, path: string, body?: unknown) => Promise<Response>;

/** Where a page goes (window.location.assign; a seam for tests). */
export type Navigate = (url: string) => void;

/** How often the card asks for new waiting windows while the page is shown. */
export const waitingPollMs = 2000;

function make<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/** The "Waiting for you" card, shown before `before` while windows wait. */
export class WaitingCard {
  private card: HTMLElement | null = null;
  private shown = "";
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly call: HomeCall,
    private readonly before: HTMLElement,
    private readonly navigate: Navigate = (url) => window.location.assign(url),
  ) {}

  /** Shows the waiting windows (none: no card). An unchanged list is not drawn again. */
  render(list: WaitingWindow[]): void {
    const key = JSON.stringify(list.map((w) => [w.window, w.title]));
    if (key === this.shown) return;
    this.shown = key;
    if (list.length === 0) {
      this.card?.remove();
      this.card = null;
      return;
    }
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const items = make("ul", { className: "waiting-list", id: "waiting-list" });
    for (const w of list) items.append(this.item(w));
    const title = make("h2", { id: "waiting-title" }, "Waiting for you");
    const lead = make("p", { className: "lead" }, list.length === 1 ? "A window is ready. Open it when you like." : "Some windows are ready. Open them when you like.");
    const card = make("section", { id: "waiting", className: "card waiting" }, title, lead, items);
    card.setAttribute("aria-labelledby", "waiting-title");
    if (this.card) this.card.replaceWith(card);
    else this.before.before(card);
    this.card = card;
    if (focused) card.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private item(w: WaitingWindow): HTMLLIElement {
    const title = w.title.trim() || w.unique;
    const note = make("p", { className: "open-note", id: `waiting-${w.window}-note` });
    note.setAttribute("role", "status");
    const open = make("button", { type: "button", className: "open" }, "Open");
    open.setAttribute("aria-label", `Open ${title}`);
    open.dataset.window = w.window;
    open.dataset.focusKey = `waiting:${w.window}`;
    open.addEventListener("click", () => void this.open(w, title, note, open));
    const li = make("li", {}, make("span", { className: "what" }, "Claude opened ", make("strong", {}, title), " for you."), open, note);
    li.dataset.window = w.window;
    return li;
  }

  /**
   * Opens a waiting window in this tab: the host gives its one-time link to
   * this page only. Going to it in the same tab is never taken for a
   * pop-up, and Back returns to Home, which stays signed in.
   */
  private async open(w: WaitingWindow, title: string, note: HTMLElement, button: HTMLButtonElement): Promise<void> {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    note.dataset.state = "working";
    note.textContent = `Opening ${title}…`;
    try {
      const res = await this.call("POST", `/home/api/windows/${encodeURIComponent(w.window)}/show`, {});
      const { url } = (await res.json()) as { url: string };
      note.dataset.state = "ok";
      note.textContent = `${title} is opening here.`;
      this.navigate(url);
    } catch (e) {
      note.dataset.state = "error";
      note.replaceChildren(
        `${title} could not open. Check that Lets is running and try again.`,
        ...(e instanceof Error ? [make("details", { className: "more" }, make("summary", {}, "Details"), make("p", {}, e.message))] : []),
      );
      button.removeAttribute("aria-disabled");
    }
  }

  /** Asks for the waiting windows now. */
  async poll(): Promise<void> {
    try {
      const res = await this.call("GET", "/home/api/waiting");
      this.render(((await res.json()) as { waiting: WaitingWindow[] }).waiting ?? []);
    } catch {
      // The overview's refresh says when Lets does not answer.
    }
  }

  /** Keeps the card current: a new waiting window shows within a few seconds. */
  watch(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (document.visibilityState === "visible") void this.poll();
    }, waitingPollMs);
  }
}

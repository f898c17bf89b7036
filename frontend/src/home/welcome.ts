// The first-run welcome: Lets adds "welcome=1" to the home link's fragment
// the first time it starts for a person (no data folder before), and the
// page greets them with what Lets is and where to begin.

/** Whether the address asks for the welcome (read before the key is taken out of it). */
export function wantsWelcome(hash: string): boolean {
  return new URLSearchParams(hash.replace(/^#/, "")).get("welcome") === "1";
}

/** What the welcome's buttons do; each returns nothing and may move the focus. */
export interface WelcomeActions {
  chat(note: HTMLElement, button: HTMLButtonElement): void;
  pair(): void;
  setupClaude(): void;
  /** The welcome closed: the keyboard goes somewhere useful (never the page's body). */
  closed(): void;
}

function make<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...kids);
  return node;
}

/** Builds the welcome card (a labelled region with its three ways in and a close button). */
export function welcomeCard(actions: WelcomeActions): HTMLElement {
  const title = make("h2", { id: "welcome-title", tabIndex: -1 }, "Welcome to Lets");
  const lead = make(
    "p",
    { className: "lead", id: "welcome-lead" },
    "Lets puts you and Claude side by side: chat with Claude in a friendly window, let it open small apps you can both use, and answer its questions from here, from your phone or from a Launchpad.",
  );
  const note = make("p", { className: "open-note", id: "welcome-note" });
  note.setAttribute("role", "status");
  const chat = make("button", { type: "button", id: "welcome-chat" }, "Chat with Claude");
  chat.addEventListener("click", () => actions.chat(note, chat));
  const pair = make("button", { type: "button", className: "quiet", id: "welcome-pair" }, "Pair a phone");
  pair.addEventListener("click", () => actions.pair());
  const setup = make("button", { type: "button", className: "quiet", id: "welcome-claude" }, "Set up Claude");
  setup.addEventListener("click", () => actions.setupClaude());
  const card = make("section", { id: "welcome", className: "card welcome" }, title, lead, make("div", { className: "row" }, chat, pair, setup), note);
  card.setAttribute("aria-labelledby", "welcome-title");
  const close = make("button", { type: "button", className: "quiet close", id: "welcome-close" }, "Got it");
  // The name starts with the words the button shows (WCAG 2.5.3).
  close.setAttribute("aria-label", "Got it, close the welcome");
  close.addEventListener("click", () => {
    card.remove();
    actions.closed();
  });
  card.append(close);
  return card;
}

/** Moves the keyboard focus (and the view) to a heading, which is made focusable for it. */
export function focusHeading(id: string): void {
  const h = document.getElementById(id);
  if (!h) return;
  if (!h.hasAttribute("tabindex")) h.tabIndex = -1;
  h.scrollIntoView({ block: "start" });
  h.focus();
}

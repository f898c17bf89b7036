// The companion in the shell page (seed §3.2, spec lip-1 §4.3): draws the
// character, its speech bubble and click menu, applies entity.* commands
// and reports the human's acts on it (click, pick, summon, dismiss,
// profile, secrets). Decisions live in logic.ts; this file wires the DOM.

import "./entity.css";
import { CLEAR_GAP, boxAt, clearSpot, coveredArea, near, overlapArea, type Rect } from "./clear";
import { removeKeepingFocus, trackFocusOrigin } from "../dom";
import { makeFigure } from "./figure";
import {
  besidePoint, clampToViewport, DEFAULT_PERSONA, followPoint, GestureDetector, Glide, isMood, isReaction, menuFocus, menuItems,
  mergeSuggestions, moodLook, parsePersona, ProfileAggregator, reactionMs, suggestionsOf,
  type GestureOutcome, type Mood, type Persona, type Point, type Reaction, type Suggestion,
} from "./logic";

/** What the companion needs from the shell. */
export interface CompanionHost {
  /** Sends a human act up the shell channel (from: shell). */
  emit(type: string, data: Record<string, unknown>): void;
  /** Where the unique's frame is, to place summons from inside it. */
  frameRect(): DOMRect;
  /**
   * Where the window's controls are now (shell coordinates): the shell's
   * own and the unique's, as its SDK reported them. The companion keeps
   * clear of them (issue #21).
   */
  controls(): Rect[];
  /**
   * Text the person is reading (Claude's replies in the chat, the part in
   * view), in shell coordinates: neither the companion nor its speech
   * bubble goes over it (issue #26).
   */
  reading?(): Rect[];
}

/** The pointer this close to the companion, over a control, makes it step aside. */
const NEAR_PX = 24;

const SIZE = { w: 64, h: 64 };

/** What counts as a control of the shell, for the companion to keep clear of. */
export const SHELL_CONTROLS =
  'button, input:not([type="hidden"]):not([type="file"]), select, textarea, a[href], summary, [contenteditable="true"], [role="button"], [role="switch"], [role="slider"], [role="menuitem"], [role="option"], [role="checkbox"], [role="radio"], [role="tab"]';
/** After Claude places the companion, following waits this long. */
const HOLD_AFTER_MOVE_MS = 5000;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export class Companion {
  readonly element: HTMLDivElement;
  private readonly button: HTMLButtonElement;
  private readonly bubble: HTMLDivElement;
  private readonly menu: HTMLDivElement;
  private readonly live: HTMLDivElement;
  private readonly figure = makeFigure();
  private pos: Point;
  /** Where it means to be; a resize clamps from here, so a view that shrinks for a moment does not lose its place. */
  private home: Point;
  private glide: Glide | null = null;
  private frame = 0;
  private persona: Persona = DEFAULT_PERSONA;
  private claudeItems: Suggestion[] = [];
  private bubbleTimer = 0;
  private reactTimer = 0;
  private holdUntil = 0;
  private pointer: Point | null = null;
  private drag: { dx: number; dy: number; startX: number; startY: number; moved: boolean } | null = null;
  private readonly gestures: GestureDetector;
  private readonly profile: ProfileAggregator;
  private readonly reduced: MediaQueryList;
  private readonly timer: number;
  private flushed = false;

  constructor(parent: HTMLElement, private readonly host: CompanionHost, private readonly now: () => number = () => performance.now()) {
    this.gestures = new GestureDetector(now());
    this.profile = new ProfileAggregator(now());
    this.reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

    // A landmark of its own (issue #26): the companion and its menu are
    // not the app's content, and every part of the page sits in one.
    this.element = el("div", "lets-companion", { "data-mood": "idle", role: "complementary" });
    this.button = el("button", "lets-companion-body", { type: "button", "aria-haspopup": "menu", "aria-expanded": "false", "aria-controls": "lets-companion-menu" });
    this.button.append(this.figure.root);
    this.bubble = el("div", "lets-companion-bubble", { "aria-hidden": "true" });
    this.bubble.hidden = true;
    this.menu = el("div", "lets-companion-menu", { role: "menu", id: "lets-companion-menu" });
    this.menu.hidden = true;
    this.live = el("div", "lets-sr-only", { role: "status", "aria-live": "polite", id: "lets-companion-live" });
    this.element.append(this.bubble, this.button, this.menu);
    parent.append(this.element, this.live);
    trackFocusOrigin(this.element);

    this.setMood("idle");
    this.applyPersona();
    const view = this.view();
    this.pos = clampToViewport({ x: view.w - SIZE.w - 28, y: view.h - SIZE.h - 28 }, SIZE, view);
    this.home = { ...this.pos };
    this.place();
    this.wire();
    this.timer = window.setInterval(() => this.tick(), 1000);
    this.settleSoon();
  }

  // ------------------------------------------------------------ commands

  /** Applies an entity.* command; returns false for other types. */
  handle(type: string, d: Record<string, unknown>): boolean {
    switch (type) {
      case "entity.say":
        this.say(String(d.text ?? ""), typeof d.ttl === "number" ? d.ttl : 6000, d.mood);
        return true;
      case "entity.mood":
        if (isMood(d.mood)) this.setMood(d.mood);
        return true;
      case "entity.suggest":
        this.claudeItems = mergeSuggestions(this.claudeItems, suggestionsOf(d.items), d.replace === true);
        if (!this.menu.hidden) this.renderMenu(false);
        return true;
      case "entity.move":
        this.moveCommand(d);
        return true;
      case "entity.show":
        this.setHidden(false);
        return true;
      case "entity.hide":
        this.setHidden(true);
        return true;
      case "entity.persona":
        this.persona = parsePersona(d, this.persona);
        this.applyPersona();
        return true;
      case "entity.react":
        if (isReaction(d.name)) this.react(d.name, d.ms);
        return true;
    }
    return false;
  }

  /** The unique emitted entity.summon at (x, y) in its own coordinates. */
  summonFromUnique(x: number, y: number): void {
    const r = this.host.frameRect();
    this.summonAt({ x: r.left + x, y: r.top + y }, false);
  }

  /** Sends the profile now (the window is closing); once per window. */
  flushProfile(): void {
    if (this.flushed) return;
    this.flushed = true;
    this.host.emit("entity.profile", { ...this.profile.take(this.now()) });
  }

  /** The secrets found in this window. */
  secretsFound(): string[] {
    return this.gestures.secrets();
  }

  // -------------------------------------------------------------- look

  private setMood(mood: Mood): void {
    const look = moodLook(mood);
    this.element.dataset.mood = mood;
    this.element.dataset.motion = look.motion;
    this.figure.setLook(look);
  }

  private applyPersona(): void {
    this.element.dataset.name = this.persona.name;
    this.element.setAttribute("aria-label", `${this.persona.name}, your companion`);
    this.button.setAttribute("aria-label", `${this.persona.name}, your companion. Click for suggestions; Ctrl+Space calls it from anywhere.`);
    this.menu.setAttribute("aria-label", `Suggestions from ${this.persona.name}`);
    this.element.style.setProperty("--lets-c-speed", String(this.persona.speed));
  }

  private say(text: string, ttl: number, mood: unknown): void {
    if (isMood(mood)) this.setMood(mood);
    this.bubble.textContent = text;
    this.bubble.hidden = !text;
    this.live.textContent = text ? `${this.persona.name} says: ${text}` : "";
    this.layoutPopups();
    if (!this.menu.hidden) this.renderMenu(false);
    clearTimeout(this.bubbleTimer);
    this.bubbleTimer = window.setTimeout(() => {
      this.bubble.hidden = true;
    }, Math.max(1000, Math.min(ttl, 120_000)));
  }

  private react(name: Reaction, ms?: unknown): void {
    const dur = reactionMs(name, ms);
    // Restart the animation even when the same reaction plays again.
    delete this.element.dataset.react;
    void this.element.offsetWidth;
    this.element.style.setProperty("--lets-c-react-ms", `${dur}ms`);
    this.element.dataset.react = name;
    clearTimeout(this.reactTimer);
    this.reactTimer = window.setTimeout(() => delete this.element.dataset.react, dur);
  }

  private setHidden(hidden: boolean): void {
    if (hidden) this.closeMenu(false);
    this.element.dataset.hidden = String(hidden);
    this.element.setAttribute("aria-hidden", String(hidden));
    this.button.tabIndex = hidden ? -1 : 0;
    if (!hidden) this.settle();
  }

  // ------------------------------------------------------------ motion

  private view(): { w: number; h: number } {
    return { w: document.documentElement.clientWidth || window.innerWidth, h: document.documentElement.clientHeight || window.innerHeight };
  }

  private center(): Point {
    return { x: this.pos.x + SIZE.w / 2, y: this.pos.y + SIZE.h / 2 };
  }

  private place(): void {
    this.element.style.transform = `translate(${Math.round(this.pos.x)}px, ${Math.round(this.pos.y)}px)`;
    this.element.dataset.x = String(Math.round(this.pos.x));
    this.element.dataset.y = String(Math.round(this.pos.y));
    // Wherever it is drawn (gliding across the page, or on a view whose
    // controls leave no clear place), a click meant for a control under it
    // goes to that control.
    const over = !this.drag && coveredArea(this.pos, SIZE, this.known) > 0;
    if (over) this.element.dataset.overControl = "true";
    else delete this.element.dataset.overControl;
  }

  /** The controls as last looked up (refreshed when the companion settles). */
  private known: Rect[] = [];
  /** The text being read, as last looked up. */
  private reading: Rect[] = [];

  private lookUpControls(): Rect[] {
    this.reading = this.host.reading?.() ?? [];
    this.known = [...this.host.controls(), ...this.reading];
    // How many it keeps clear of (for a look in the inspector, and tests).
    this.element.dataset.controls = String(this.known.length);
    return this.known;
  }

  /** The place nearest to want that covers no control (see clear.ts). */
  private spotFor(want: Point, avoid: Rect[] = []): Point {
    return clearSpot(want, SIZE, this.view(), this.lookUpControls(), avoid);
  }

  /**
   * Goes where it means to be (home), or the nearest place to it clear of
   * the controls as they are now: after a command, a change of the page,
   * the chat opening, a resize. Not while the human holds it or its menu.
   */
  settle(): void {
    if (this.drag || !this.menu.hidden || this.element.dataset.hidden === "true") {
      this.lookUpControls();
      this.place();
      return;
    }
    const spot = this.spotFor(this.home);
    const at = this.glide ? this.glide.to : this.pos;
    if (Math.hypot(spot.x - at.x, spot.y - at.y) < 1) {
      this.place();
      if (!this.glide) this.layoutPopups();
      return;
    }
    this.glideTo(spot);
  }

  /**
   * Steps out of the way of a control the human is about to use (the
   * pointer near it, or the focus on it) when the companion covers one.
   */
  private stepAside(avoid: Rect): void {
    if (this.drag || !this.menu.hidden || this.element.dataset.hidden === "true") return;
    const spot = this.spotFor(this.pos, [avoid]);
    this.home = { ...spot };
    this.holdUntil = this.now() + HOLD_AFTER_MOVE_MS;
    this.glideTo(spot);
  }

  /** A control got the focus (in the shell, or in the unique: rect in shell coordinates). */
  focusOn(rect: Rect): void {
    // How many focus moves it has seen: a page (and a test) can tell that
    // a focus reported from the unique's frame has arrived.
    this.element.dataset.focusSeen = String(Number(this.element.dataset.focusSeen ?? "0") + 1);
    const grown = { x: rect.x - 8, y: rect.y - 8, w: rect.w + 16, h: rect.h + 16 };
    if (overlapArea(boxAt(this.glide ? this.glide.to : this.pos, SIZE, CLEAR_GAP), grown) > 0) this.stepAside(grown);
  }

  /** Eases the companion's top-left to p (clamped); never jumps. */
  private goTo(p: Point, avoid: Rect[] = []): void {
    this.home = clampToViewport(p, SIZE, this.view());
    this.glideTo(this.spotFor(this.home, avoid));
  }

  /** Eases the companion's top-left to `to` (already clear and clamped). */
  private glideTo(to: Point): void {
    if (this.reduced.matches) {
      // Reduced motion: a fade out and in at the new place, no travel.
      this.element.dataset.fading = "true";
      this.glide = null;
      window.setTimeout(() => {
        this.pos = to;
        this.place();
        this.layoutPopups();
        delete this.element.dataset.fading;
      }, 160);
      return;
    }
    this.glide = new Glide({ ...this.pos }, to, this.now(), this.persona.speed);
    this.element.dataset.moving = "true";
    if (!this.frame) this.frame = requestAnimationFrame(() => this.step());
  }

  private step(): void {
    this.frame = 0;
    if (!this.glide) return;
    const t = this.now();
    this.pos = this.glide.at(t);
    this.place();
    if (this.glide.done(t)) {
      this.glide = null;
      delete this.element.dataset.moving;
      this.lookUpControls();
      this.place();
      this.layoutPopups();
      return;
    }
    this.frame = requestAnimationFrame(() => this.step());
  }

  private moveCommand(d: Record<string, unknown>): void {
    let target: Point | null = null;
    if (typeof d.x === "number" && typeof d.y === "number") {
      target = { x: d.x - SIZE.w / 2, y: d.y - SIZE.h / 2 };
    } else if (d.to === "center") {
      const v = this.view();
      target = { x: (v.w - SIZE.w) / 2, y: (v.h - SIZE.h) / 2 };
    } else if (d.to === "cursor") {
      target = besidePoint(this.pointer ?? this.center(), this.persona.distance, SIZE, this.view());
    } else if (typeof d.to === "string") {
      target = this.besideSelector(d.to);
    }
    if (!target) return;
    this.holdUntil = this.now() + HOLD_AFTER_MOVE_MS;
    this.goTo(target);
  }

  /** Next to the element a selector names in the shell page, if any. */
  private besideSelector(selector: string): Point | null {
    let found: Element | null = null;
    try {
      found = document.querySelector(selector);
    } catch {
      console.warn(`lets: entity.move: "${selector}" is not a CSS selector`);
      return null;
    }
    if (!found || this.element.contains(found)) return null;
    const r = found.getBoundingClientRect();
    const v = this.view();
    const midY = r.top + r.height / 2 - SIZE.h / 2;
    const midX = r.left + r.width / 2 - SIZE.w / 2;
    // To its right when there is room and no control, else to its left,
    // below or above it; else the right (or left) and the nearest clear place.
    const sides = [
      { x: r.right + 8, y: midY },
      { x: r.left - 8 - SIZE.w, y: midY },
      { x: midX, y: r.bottom + 8 },
      { x: midX, y: r.top - 8 - SIZE.h },
    ];
    const controls = this.lookUpControls();
    for (const [i, p] of sides.entries()) {
      // Beside it may slide along the element's side to stay in the view,
      // but not onto the element.
      const c = clampToViewport(p, SIZE, v);
      const fits = i < 2 ? Math.abs(c.x - p.x) < 0.5 : Math.abs(c.y - p.y) < 0.5;
      if (fits && coveredArea(c, SIZE, controls, CLEAR_GAP) === 0) return c;
    }
    return r.right + 8 + SIZE.w <= v.w ? sides[0] : sides[1];
  }

  private follow(): void {
    if (!this.pointer || this.drag || this.glide || !this.menu.hidden || this.element.dataset.hidden === "true") return;
    if (this.now() < this.holdUntil) return;
    const p = followPoint(this.pointer, this.center(), this.persona.distance, SIZE, this.view());
    // Never onto the pointer, wherever the controls push it.
    if (p) this.goTo(p, [{ x: this.pointer.x - 12, y: this.pointer.y - 12, w: 24, h: 24 }]);
  }

  // -------------------------------------------------------------- menu

  private renderMenu(focusFirst: boolean): void {
    const head = el("div", "lets-companion-menu-head");
    head.textContent = this.persona.name;
    head.setAttribute("aria-hidden", "true");
    // With the menu open, what the companion is saying heads the menu (the
    // floating bubble would sit under it).
    if (!this.bubble.hidden && this.bubble.textContent) {
      const said = el("p", "lets-companion-menu-say");
      said.textContent = this.bubble.textContent;
      head.append(said);
    }
    const items = menuItems(this.claudeItems).map((s) => this.menuItem(s.label, s.hint, () => this.pick(s), s.id));
    const hide = this.menuItem("Hide for now", "Ctrl+Space brings me back", () => this.dismiss(), "");
    hide.classList.add("lets-companion-dismiss");
    this.menu.replaceChildren(head, ...items, hide);
    this.layoutPopups();
    if (focusFirst) items[0]?.focus();
  }

  private menuItem(label: string, hint: string | undefined, act: () => void, id: string): HTMLButtonElement {
    const b = el("button", "lets-companion-item", { type: "button", role: "menuitem", tabindex: "-1" });
    if (id) b.dataset.id = id;
    const l = el("span", "lets-companion-label");
    l.textContent = label;
    b.append(l);
    if (hint) {
      const h = el("span", "lets-companion-hint");
      h.textContent = hint;
      // The name is the visible text, label then hint (no aria-label
      // that says it differently: issue #26, label-content-name-mismatch).
      b.append(h);
    }
    b.addEventListener("click", (ev) => {
      ev.stopPropagation();
      act();
    });
    return b;
  }

  private openMenu(focusFirst: boolean): void {
    this.menu.hidden = false;
    this.element.dataset.menu = "open";
    this.button.setAttribute("aria-expanded", "true");
    this.renderMenu(focusFirst);
  }

  private closeMenu(refocus: boolean): void {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    delete this.element.dataset.menu;
    this.button.setAttribute("aria-expanded", "false");
    if (refocus) this.button.focus();
    this.settle();
  }

  private pick(s: Suggestion): void {
    this.host.emit("entity.pick", { id: s.id, label: s.label });
    this.closeMenu(true);
    this.react("nod");
  }

  private dismiss(): void {
    this.host.emit("entity.dismiss", {});
    // The focus goes back to the control it came from (issue #26), not
    // to the page's body.
    removeKeepingFocus(this.element, [], () => this.setHidden(true));
    if (this.element.contains(document.activeElement)) this.button.blur();
  }

  /** Positions the bubble and menu on the side with room. */
  private layoutPopups(): void {
    const v = this.view();
    this.element.dataset.side = this.pos.x + SIZE.w / 2 > v.w / 2 ? "left" : "right";
    this.element.dataset.vside = this.pos.y + SIZE.h / 2 > v.h / 2 ? "up" : "down";
    this.placeBubble();
  }

  /**
   * The speech bubble goes on a side where it covers none of the text
   * being read and stays in the view; where no side is clear it is tucked
   * away (not drawn: the live region has said it, and the menu heads
   * with it when opened).
   */
  private placeBubble(): void {
    delete this.element.dataset.bubble;
    if (this.bubble.hidden || !this.bubble.textContent) return;
    const reading = this.host.reading?.() ?? [];
    if (!reading.length) return;
    const v = this.view();
    const want = { side: this.element.dataset.side ?? "right", vside: this.element.dataset.vside ?? "down" };
    const flip = (s: string, a: string, b: string) => (s === a ? b : a);
    const tries = [
      want,
      { side: want.side, vside: flip(want.vside, "up", "down") },
      { side: flip(want.side, "left", "right"), vside: want.vside },
      { side: flip(want.side, "left", "right"), vside: flip(want.vside, "up", "down") },
    ];
    for (const t of tries) {
      this.element.dataset.side = t.side;
      this.element.dataset.vside = t.vside;
      const r = this.bubble.getBoundingClientRect();
      const box = { x: r.left, y: r.top, w: r.width, h: r.height };
      const inView = r.left >= 0 && r.top >= 0 && r.right <= v.w && r.bottom <= v.h;
      if (inView && reading.every((q) => overlapArea(box, q) === 0)) return;
    }
    this.element.dataset.side = want.side;
    this.element.dataset.vside = want.vside;
    this.element.dataset.bubble = "tucked";
  }

  private summonAt(p: Point, emit: boolean, context?: Record<string, unknown>): void {
    if (emit) this.host.emit("entity.summon", { x: Math.round(p.x), y: Math.round(p.y), ...(context ? { context } : {}) });
    this.setHidden(false);
    // Beside the point, not on it: the human is looking there.
    const to = besidePoint(p, Math.min(this.persona.distance, 40), SIZE, this.view());
    this.holdUntil = this.now() + HOLD_AFTER_MOVE_MS;
    this.goTo(to);
    this.openMenu(true);
  }

  // ------------------------------------------------------------ events

  private wire(): void {
    const b = this.button;
    b.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      b.setPointerCapture(ev.pointerId);
      this.drag = { dx: ev.clientX - this.pos.x, dy: ev.clientY - this.pos.y, startX: ev.clientX, startY: ev.clientY, moved: false };
      this.gestures.dragStart({ x: ev.clientX, y: ev.clientY, t: this.now() });
    });
    b.addEventListener("pointermove", (ev) => {
      const d = this.drag;
      if (!d) return;
      if (!d.moved && Math.hypot(ev.clientX - d.startX, ev.clientY - d.startY) < 5) return;
      if (!d.moved) {
        d.moved = true;
        this.closeMenu(false);
        this.glide = null;
        this.element.dataset.dragging = "true";
      }
      // The human carries it: it goes where the hand goes, inside the view.
      this.pos = clampToViewport({ x: ev.clientX - d.dx, y: ev.clientY - d.dy }, SIZE, this.view());
      this.place();
      this.outcomes(this.gestures.dragMove({ x: ev.clientX, y: ev.clientY, t: this.now() }));
    });
    const endDrag = () => {
      if (!this.drag) return;
      const moved = this.drag.moved;
      this.drag = null;
      this.gestures.dragEnd();
      delete this.element.dataset.dragging;
      if (moved) {
        this.home = { ...this.pos };
        this.holdUntil = this.now() + HOLD_AFTER_MOVE_MS;
        this.layoutPopups();
        // Put down on a control, it slides off it.
        this.settle();
        // A drag is not a click.
        b.dataset.suppressClick = "true";
        window.setTimeout(() => delete b.dataset.suppressClick, 0);
      }
    };
    b.addEventListener("pointerup", endDrag);
    b.addEventListener("pointercancel", endDrag);
    b.addEventListener("click", (ev) => {
      if (b.dataset.suppressClick) return;
      if (!this.menu.hidden) return;
      const x = ev.detail === 0 ? this.center().x : ev.clientX;
      const y = ev.detail === 0 ? this.center().y : ev.clientY;
      this.host.emit("entity.click", { x: Math.round(x), y: Math.round(y) });
      // Local suggestions at once; Claude's arrive by entity.suggest.
      this.openMenu(ev.detail === 0);
    });
    b.addEventListener("dblclick", () => this.outcomes(this.gestures.doubleClick(this.now())));
    b.addEventListener("pointerenter", () => this.outcomes(this.gestures.hover(this.now())));

    this.menu.addEventListener("keydown", (ev) => {
      const items = [...this.menu.querySelectorAll<HTMLButtonElement>("[role=menuitem]")];
      const i = items.indexOf(document.activeElement as HTMLButtonElement);
      const next = menuFocus(ev.key, i, items.length);
      if (next >= 0) {
        ev.preventDefault();
        items[next].focus();
      } else if (ev.key === "Tab") {
        this.closeMenu(false);
      }
    });

    window.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && !this.menu.hidden) {
        ev.preventDefault();
        this.closeMenu(true);
        return;
      }
      if (ev.ctrlKey && (ev.code === "Space" || ev.key === " ")) {
        ev.preventDefault();
        const at = this.pointer ?? this.center();
        this.summonAt(at, true, { via: "hotkey" });
        return;
      }
      this.profile.key(this.now());
      this.outcomes(this.gestures.key(ev.key, this.now(), document.activeElement === b));
    });
    window.addEventListener("contextmenu", (ev) => {
      // Right-click on the shell chrome summons; the unique's own
      // right-clicks arrive through its SDK with its context.
      if (this.menu.contains(ev.target as Node)) return;
      // Where text is written or a prompt waits, the browser's own menu
      // (copy, paste) matters more.
      if (ev.target instanceof Element && ev.target.closest("input, textarea, select, [contenteditable], dialog")) return;
      ev.preventDefault();
      this.summonAt({ x: ev.clientX, y: ev.clientY }, true);
    });
    window.addEventListener("pointerdown", (ev) => {
      this.profile.click(this.now());
      if (!this.menu.hidden && !this.element.contains(ev.target as Node)) this.closeMenu(false);
    });
    window.addEventListener("pointermove", (ev) => this.pointerSample(ev.clientX, ev.clientY, this.element.contains(ev.target as Node)));
    window.addEventListener("resize", () => {
      const v = this.view();
      if (v.w < SIZE.w || v.h < SIZE.h) return;
      this.glide = null;
      delete this.element.dataset.moving;
      this.pos = clampToViewport(this.home, SIZE, v);
      this.place();
      this.layoutPopups();
      this.settle();
    });
    window.addEventListener("pagehide", () => this.flushProfile());
    // Controls appearing, going or moving in the shell (the chat opening,
    // a component, a toast) or a layout that ends its animation: the
    // companion keeps clear of them. At most once a frame.
    new MutationObserver((list) => {
      if (list.some((m) => !this.element.contains(m.target) && m.target !== this.live && !this.live.contains(m.target))) this.settleSoon();
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden", "class", "open", "disabled", "data-docked"] });
    const ended = (ev: Event) => {
      if (!this.element.contains(ev.target as Node)) this.settleSoon();
    };
    document.addEventListener("animationend", ended);
    document.addEventListener("transitionend", ended);
    // A scrolled panel (the chat's dock as its cards arrive) moves its
    // controls without any change the observer sees.
    document.addEventListener("scroll", ended, { capture: true, passive: true });
    window.addEventListener("focusin", (ev) => {
      const t = ev.target;
      if (!(t instanceof Element) || this.element.contains(t) || !t.matches(SHELL_CONTROLS)) return;
      const r = t.getBoundingClientRect();
      this.focusOn({ x: r.left, y: r.top, w: r.width, h: r.height });
    });
  }

  /**
   * Pointer activity over the unique, relayed by its SDK: positions (in the
   * frame) for following and the profile, counts of clicks and keys. It
   * never triggers a secret (those are acts on the companion itself), so a
   * unique cannot make the shell report one.
   */
  uniquePointer(kind: string, x: number, y: number): void {
    const t = this.now();
    if (kind === "down") this.profile.click(t);
    else if (kind === "key") this.profile.key(t);
    else if (kind === "move" && Number.isFinite(x) && Number.isFinite(y)) {
      const r = this.host.frameRect();
      this.pointerSample(r.left + x, r.top + y, false);
    }
  }

  private settleQueued = 0;

  /** settle() at the next frame, once however many changes came. */
  settleSoon(): void {
    if (this.settleQueued) return;
    this.settleQueued = requestAnimationFrame(() => {
      this.settleQueued = 0;
      this.settle();
    });
  }

  /** A pointer position in shell coordinates (from the shell or the unique's SDK). */
  pointerSample(x: number, y: number, overCompanion: boolean): void {
    const t = this.now();
    this.pointer = { x, y };
    // Over a control the companion covers (no clear place was left): it
    // makes way before the human gets there.
    if (this.element.dataset.overControl === "true" && !this.glide && near(boxAt(this.pos, SIZE), { x, y }, NEAR_PX)) {
      this.stepAside({ x: x - 48, y: y - 48, w: 96, h: 96 });
    }
    this.profile.move(x, y, t, this.view());
    const c = this.center();
    this.outcomes(this.gestures.pointer({ x, y, t }, { x: c.x, y: c.y, r: SIZE.w / 2 }, overCompanion));
    this.follow();
  }

  private outcomes(list: GestureOutcome[]): void {
    for (const o of list) {
      if (o.kind === "react") this.react(o.name);
      else if (o.kind === "mood") this.setMood(o.mood);
      else {
        this.host.emit("entity.secret", { name: o.name });
        this.react(o.name === "konami" ? "sparkle" : o.name);
      }
    }
  }

  private tick(): void {
    const t = this.now();
    this.outcomes(this.gestures.tick(t));
    if (this.profile.due(t)) this.host.emit("entity.profile", { ...this.profile.take(t) });
  }

  /** Stops timers (the window closed). */
  stop(): void {
    clearInterval(this.timer);
    cancelAnimationFrame(this.frame);
  }
}

/**
 * Mounts the companion in the shell and marks its first paint for the
 * Performance API ("lets-companion-paint"), measured from navigation start.
 */
export function mountCompanion(parent: HTMLElement, host: CompanionHost): Companion {
  const c = new Companion(parent, host);
  requestAnimationFrame(() => setTimeout(() => performance.mark("lets-companion-paint"), 0));
  return c;
}

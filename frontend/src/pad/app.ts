// The pad app in the browser: connects to /ws, pairs, draws the 80 lights
// and sends taps. Everything it may send is in protocol.ts.

import {
  ACTIONS,
  actionMessage,
  authenticate,
  createPairing,
  getLAN,
  listDevices,
  parseServerMessage,
  revokeDevice,
  revokeRemote,
  selectSession,
  setLAN,
  startExperience,
  stopExperience,
  type Action,
  type Device,
  type ExperienceState,
  type LANMessage,
  type PairingMessage,
  type ServerMessage,
  type View,
} from "./protocol";
import {
  ACTION_LABELS,
  OFF_COLOUR,
  PAD_BUTTONS,
  TOP_RAIL,
  accentColour,
  announcement,
  clock,
  darkLights,
  formatPairedAt,
  glyphWords,
  headline,
  lightsFromFrame,
  lightsFromPerformance,
  moveFocus,
  sceneLabel,
  sessionInSlot,
  stateChip,
  tokenColour,
  type Arrow,
  type Lights,
  type Pos,
} from "./model";
import {
  ADMIN_KEY,
  FAILURES_KEY,
  Failures,
  SESSION_KEY,
  chooseCredential,
  explainForbidden,
  isLoopbackHost,
  normalizePin,
  parseFragment,
  pinDigits,
  viewFragment,
  type CredentialKind,
  type Fragment,
  type PageView,
} from "./pairing";
import { PadSound } from "./audio";

/**
 * Demo and Show controls on the admin page (the daemon plays both; only
 * this computer's administrator may start or stop them).
 */
export const EXPERIENCE_CONTROLS = true;

const RECONNECT_MS = 1200;
const MAX_RETRY_MS = 10_000;

type Screen = "connecting" | "pad" | "pair" | "link";

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`pad page is missing #${id}`);
  return el as T;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Sets list's children to one element per item, in order, keeping the
 * element already shown for an item's key (fill redraws its insides) so a
 * keyboard user's focus on it survives every redraw; only new keys make
 * new elements and nothing that stays is moved unless the order changed.
 * When the focused item goes away, focus moves to the item now in its
 * place (or the last one), else to fallback.
 */
function keyedChildren<T>(
  list: HTMLElement,
  items: readonly T[],
  key: (t: T) => string,
  make: () => HTMLElement,
  fill: (e: HTMLElement, t: T) => void,
  fallback?: () => HTMLElement | null,
): void {
  const old = new Map<string, HTMLElement>();
  for (const c of Array.from(list.children)) {
    if (c instanceof HTMLElement && c.dataset.key !== undefined) old.set(c.dataset.key, c);
    else c.remove();
  }
  const want = items.map((t) => {
    const k = key(t);
    let e = old.get(k);
    old.delete(k);
    if (!e) {
      e = make();
      e.dataset.key = k;
    }
    fill(e, t);
    return e;
  });
  let lostAt = -1;
  for (const e of old.values()) {
    if (e.contains(document.activeElement)) lostAt = Array.prototype.indexOf.call(list.children, e);
    e.remove();
  }
  want.forEach((e, i) => {
    if (list.children[i] !== e) list.insertBefore(e, list.children[i] ?? null);
  });
  if (lostAt < 0) return;
  const next = want[Math.min(lostAt, want.length - 1)]?.querySelector<HTMLElement>("button, a[href], input") ?? fallback?.() ?? null;
  next?.focus();
}

const storage = {
  get(key: string): string | null {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      localStorage.setItem(key, value);
    } catch {
      /* private mode: the app still works, it just forgets on reload */
    }
  },
  remove(key: string): void {
    try {
      localStorage.removeItem(key);
    } catch {
      /* ignore */
    }
  },
};

function loadFailures(): Failures {
  try {
    const raw = JSON.parse(storage.get(FAILURES_KEY) ?? "[]");
    return new Failures(Array.isArray(raw) ? raw.filter((t) => typeof t === "number") : []);
  } catch {
    return new Failures();
  }
}

/** A light of the 80: its element, and whether it shows a glow. */
interface Light {
  el: HTMLElement;
  colour: string;
}

export class PadApp {
  private ws: WebSocket | null = null;
  private authed = false;
  private admin = false;
  private lanEnabled = false;
  private kind: CredentialKind = "none";
  private fragment: Fragment;
  private pendingPin: string | null = null;
  private failures = loadFailures();
  private retryMs = RECONNECT_MS;
  private retryTimer = 0;
  private lockTimer = 0;
  private pairingTimer = 0;
  private handledClose = false;

  private view: View | null = null;
  private frameLights: Lights = darkLights();
  private showLights: Lights | null = null;
  private experience: ExperienceState | null = null;
  private pairing: { msg: PairingMessage; until: number } | null = null;
  private devices: Device[] | null = null;
  /**
   * Lets extension requests waiting for their first answer, in the order
   * sent: a server without an extension answers "unknown message type"
   * in that same order.
   */
  private pendingExtensions: ("devices" | "lan")[] = [];
  /** Whether this page may switch phone access; null until the server says. */
  private lanSwitchable: boolean | null = null;
  private lanBusy = false;
  /** Move focus to the code when it arrives (after switching on). */
  private focusPairing = false;
  private pageView: PageView = "pad";

  private grid: Light[][] = [];
  private top: Light[] = [];
  private right: Light[] = [];
  private padButtons = new Map<string, HTMLButtonElement>();
  private focusPos: Pos = PAD_BUTTONS[0];
  private sound = new PadSound(storage);

  constructor() {
    this.fragment = parseFragment(location.hash);
    this.pageView = this.fragment.view;
    if (this.fragment.admin) storage.set(ADMIN_KEY, this.fragment.admin);
    if (location.hash) {
      // The credential must not stay in the address bar or the history;
      // the view may (a reload keeps it).
      history.replaceState(null, "", location.pathname + location.search + viewFragment(this.pageView));
    }
    this.buildDevice();
    this.wire();
    this.paintLights();
    this.renderSound();
  }

  start(): void {
    this.connect();
  }

  // ---------------------------------------------------------------- screens

  private show(screen: Screen): void {
    document.body.dataset.screen = screen;
    byId("pad-screen").hidden = screen !== "pad";
    byId("pair-screen").hidden = screen !== "pair";
    byId("link-screen").hidden = screen !== "link";
    byId("wait-screen").hidden = screen !== "connecting";
  }

  private setConn(state: "ok" | "connecting" | "down" | "off", text: string): void {
    const c = byId("conn");
    c.dataset.state = state;
    byId("conn-text").textContent = text;
  }

  private say(text: string): void {
    if (!text) return;
    const live = byId("live");
    // Re-setting the same text would not be read again; clear first.
    live.textContent = "";
    window.setTimeout(() => (live.textContent = text), 30);
  }

  /** The waiting screen; raw, a message from the server, shows only
   * behind its Details toggle (#26). */
  private waiting(title: string, detail: string, raw = ""): void {
    byId("wait-title").textContent = title;
    byId("wait-detail").textContent = detail || "\u00a0";
    byId("wait-raw").textContent = raw;
    byId("wait-more").hidden = raw === "";
    if (!this.authed) this.show("connecting");
  }

  // ------------------------------------------------------------- connection

  private connect(): void {
    window.clearTimeout(this.retryTimer);
    const stored = { admin: storage.get(ADMIN_KEY), session: storage.get(SESSION_KEY) };
    const { credential, kind } = chooseCredential(this.fragment, stored, this.pendingPin);
    this.kind = kind;
    const loopback = isLoopbackHost(location.hostname);
    if (kind === "none") {
      // Nothing to try: ask for what is missing right away.
      this.setConn("off", loopback ? "No admin link" : "Not paired");
      if (loopback) this.show("link");
      else this.showPinForm(explainForbidden("none", this.failures, Date.now()));
      return;
    }
    if (kind === "pin" && this.failures.lockedFor(Date.now()) > 0) {
      this.pendingPin = null;
      this.showPinForm(explainForbidden("pin", this.failures, Date.now()));
      return;
    }
    this.setConn("connecting", this.view ? "Reconnecting…" : "Connecting…");
    if (kind === "pin") this.setPinBusy(true);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let ws: WebSocket;
    try {
      ws = new WebSocket(`${scheme}//${location.host}/ws`);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.handledClose = false;
    this.sound.reconnected();
    ws.onopen = () => ws.send(authenticate(credential));
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      const text = typeof ev.data === "string" ? ev.data : "";
      const msg = parseServerMessage(text);
      if (msg) this.handle(msg);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.onClose(ev.code, ev.reason);
    };
  }

  private send(text: string): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.authed) return false;
    this.ws.send(text);
    return true;
  }

  private scheduleRetry(): void {
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(MAX_RETRY_MS, Math.round(this.retryMs * 1.6));
  }

  private onClose(code: number, reason: string): void {
    const wasAuthed = this.authed;
    this.authed = false;
    this.setPinBusy(false);
    if (this.handledClose) return; // an error message already decided what to do
    if (wasAuthed && code === 1008 && reason === "authorization revoked") {
      storage.remove(SESSION_KEY);
      this.view = null;
      this.setConn("down", "Not paired");
      this.showPinForm({
        title: "This phone was disconnected",
        detail: "The computer removed this phone from the pad. Enter a new PIN from the computer to pair again.",
        lockedMs: 0,
      });
      this.say("This phone was disconnected from the pad.");
      return;
    }
    if (wasAuthed) {
      this.retryMs = RECONNECT_MS;
      const stopped = code === 1001;
      this.setConn("connecting", stopped ? "Lets stopped — waiting for it…" : "Reconnecting…");
      this.say(stopped ? "Lets stopped. The pad reconnects when it is back." : "Connection lost. Reconnecting.");
      this.scheduleRetry();
      return;
    }
    this.setConn("down", "Can't reach Lets");
    this.waiting("Can't reach Lets", "Is Lets running on your computer, and is this device on the same network? Trying again…");
    this.scheduleRetry();
  }

  // --------------------------------------------------------------- messages

  private handle(msg: ServerMessage): void {
    switch (msg.type) {
      case "authenticated":
        return this.onAuthenticated(msg.admin, msg.session_token, msg.lan_enabled);
      case "error":
        return this.onError(msg.code, msg.error);
      case "surface": {
        const prev = this.view;
        this.view = msg.view;
        this.frameLights = lightsFromFrame(msg.visual_frame);
        this.renderView();
        this.paintLights();
        // Animate changes only after the first frame is on screen.
        if (!document.body.classList.contains("ready")) {
          requestAnimationFrame(() => requestAnimationFrame(() => document.body.classList.add("ready")));
        }
        if (prev) this.say(announcement(prev, msg.view));
        return;
      }
      case "performance_frame": {
        const first = this.showLights === null;
        this.showLights = lightsFromPerformance(msg);
        this.paintLights();
        if (first) this.renderView();
        return;
      }
      case "experience_state":
        this.experience = msg;
        this.sound.onExperience(msg);
        if (msg.status === "idle" || msg.status === "blocked") this.showLights = null;
        this.renderExperience();
        this.paintLights();
        return;
      case "pairing":
        this.pairing = { msg, until: Date.now() + msg.expires_in * 1000 };
        this.renderPairing();
        if (this.focusPairing) {
          this.focusPairing = false;
          byId("pairing").focus();
        }
        return;
      case "remote_revoked":
        this.pairing = null;
        this.renderPairing();
        this.adminNote("Every phone was disconnected. They need a new PIN to pair again.");
        return;
      case "lan":
        return this.onLAN(msg);
      case "devices": {
        this.answered("devices");
        const before = this.devices;
        this.devices = msg.devices;
        const added = before ? msg.devices.filter((d) => !before.some((b) => b.id === d.id)) : [];
        if (added.length > 0 && this.pairing) {
          // A new device used the code on screen: it works only once.
          this.pairing = null;
          this.renderPairing();
          this.adminNote(`${added[0].name || "A phone"} is paired. Make a new code for the next one.`);
        }
        this.renderDevices();
        return;
      }
      case "device_revoked": {
        const d = this.devices?.find((x) => x.id === msg.device);
        this.adminNote(`${d ? d.name : "The device"} was disconnected.`);
        return;
      }
    }
  }

  private onAuthenticated(admin: boolean, token: string | null, lan: boolean): void {
    this.authed = true;
    this.admin = admin;
    this.lanEnabled = lan;
    this.retryMs = RECONNECT_MS;
    if (token) storage.set(SESSION_KEY, token);
    if (this.kind === "pin" || this.kind === "secret") {
      this.failures.clear();
      storage.set(FAILURES_KEY, "[]");
      this.say("Paired. This phone now controls the pad.");
    }
    this.pendingPin = null;
    this.fragment = { admin: null, pair: null, view: this.pageView };
    this.setConn("ok", "Connected");
    this.show("pad");
    byId("admin").hidden = !admin;
    if (admin) {
      byId("experiences").hidden = !EXPERIENCE_CONTROLS;
      this.lanSwitchable = null;
      this.lanBusy = false;
      this.pendingExtensions = ["devices", "lan"];
      this.send(listDevices());
      this.send(getLAN());
    }
    this.setView(admin ? this.pageView : "pad");
    this.renderLAN();
    this.renderView();
  }

  private onError(code: string, text: string): void {
    if (!this.authed) {
      this.handledClose = true;
      const now = Date.now();
      if (code === "forbidden" || code === "authentication_timeout") {
        if (this.kind === "pin") {
          this.failures.record(now);
          storage.set(FAILURES_KEY, JSON.stringify(this.failures));
        }
        if (this.kind === "session") storage.remove(SESSION_KEY);
        if (this.kind === "admin") storage.remove(ADMIN_KEY);
        if (this.kind === "secret") this.fragment = { ...this.fragment, pair: null };
        const explained = explainForbidden(this.kind, this.failures, now);
        this.pendingPin = null;
        this.setConn("down", "Not paired");
        if (this.kind === "admin" || isLoopbackHost(location.hostname)) {
          byId("link-title").textContent = explained.title;
          this.show("link");
        } else {
          this.showPinForm(explained);
        }
        return;
      }
      if (code === "connection_limit") {
        this.waiting(
          "Too many pads are open",
          "Lets allows 8 phones and tablets at once. Close the pad on another device; this one keeps trying.",
        );
        this.setConn("down", "Waiting for a free place");
        this.retryMs = 5000;
        this.scheduleRetry();
        return;
      }
      this.waiting("Lets refused the connection", "This device keeps trying. If it goes on, restart Lets on your computer.", text);
      this.scheduleRetry();
      return;
    }
    if (code === "invalid_message" && this.pendingExtensions.length > 0 && text === "unknown message type") {
      // A server without this Lets extension.
      const missing = this.pendingExtensions.shift();
      if (missing === "devices") {
        this.devices = null;
        this.renderDevices();
      } else {
        // No switch: the page explains how to start the pad with phones.
        this.lanSwitchable = false;
        this.renderLAN();
      }
      return;
    }
    if (code === "rate_limited") {
      this.say("Too many taps at once. Reconnecting.");
      return;
    }
    if (this.admin) this.adminNote(text);
    else this.say(text);
  }

  // ------------------------------------------------------------------- PIN

  private showPinForm(e: { title: string; detail: string; lockedMs: number }): void {
    this.show("pair");
    this.setConn("off", "Not paired");
    byId("pair-title").textContent = e.title;
    byId("pair-detail").textContent = e.detail;
    byId("pin-error").textContent = "";
    const input = byId<HTMLInputElement>("pin");
    input.value = "";
    this.setPinBusy(false);
    window.clearInterval(this.lockTimer);
    if (e.lockedMs > 0) {
      this.lockPinForm();
    } else {
      input.disabled = false;
      byId<HTMLButtonElement>("pin-submit").disabled = false;
      input.focus({ preventScroll: true });
    }
  }

  private lockPinForm(): void {
    const input = byId<HTMLInputElement>("pin");
    const submit = byId<HTMLButtonElement>("pin-submit");
    input.disabled = true;
    submit.disabled = true;
    const tick = () => {
      const left = this.failures.lockedFor(Date.now());
      if (left <= 0) {
        window.clearInterval(this.lockTimer);
        input.disabled = false;
        submit.disabled = false;
        submit.textContent = "Pair";
        byId("pair-title").textContent = "Try the PIN again";
        byId("pair-detail").textContent = "Enter the 6-digit PIN shown on your computer.";
        input.focus({ preventScroll: true });
        return;
      }
      submit.textContent = `Wait ${Math.ceil(left / 1000)} s`;
      byId("pair-detail").textContent = `For your safety this phone has to wait before trying again. Try again in ${Math.ceil(left / 1000)} s.`;
    };
    tick();
    this.lockTimer = window.setInterval(tick, 1000);
  }

  private setPinBusy(busy: boolean): void {
    const submit = byId<HTMLButtonElement>("pin-submit");
    if (busy) {
      submit.disabled = true;
      submit.textContent = "Pairing…";
    } else if (this.failures.lockedFor(Date.now()) === 0) {
      submit.disabled = false;
      submit.textContent = "Pair";
    }
  }

  private submitPin(): void {
    const input = byId<HTMLInputElement>("pin");
    const pin = normalizePin(input.value);
    if (!pin) {
      byId("pin-error").textContent = "The PIN has 6 digits.";
      input.focus();
      return;
    }
    if (this.failures.lockedFor(Date.now()) > 0) return;
    byId("pin-error").textContent = "";
    this.pendingPin = pin;
    this.connect();
  }

  // ------------------------------------------------------------------- pad

  private buildDevice(): void {
    const device = byId("device");
    const frag = document.createDocumentFragment();
    // Row 0: the top rail and the corner.
    TOP_RAIL.forEach((role, x) => {
      const cell = el("div", "cell rail-cell");
      const light = el("span", "rail");
      light.dataset.light = `top-${x}`;
      if (role && role !== "overflow") {
        // The whole cell is the touch target; the round light sits inside.
        const b = el("button", "rail-hit top-btn");
        b.type = "button";
        b.dataset.action = role;
        b.dataset.pos = `${x},-1`;
        b.setAttribute("aria-label", ACTION_LABELS[role]);
        b.setAttribute("aria-disabled", "true");
        b.tabIndex = -1;
        light.append(el("span", "glyph", { approve: "✓", reject: "✕", stop: "■", retry: "↻" }[role]));
        b.append(light);
        this.padButtons.set(`${x},-1`, b);
        cell.append(b);
      } else {
        light.classList.add(role === "overflow" ? "overflow-light" : "reserved");
        if (role === "overflow") light.append(el("span", "glyph", "+"));
        light.setAttribute("aria-hidden", "true");
        cell.append(light);
      }
      frag.append(cell);
      this.top.push({ el: light, colour: "" });
    });
    const corner = el("div", "cell corner");
    corner.setAttribute("aria-hidden", "true");
    const logo = el("span", "logo");
    logo.append(el("i"), el("i"), el("i"), el("i"));
    corner.append(logo);
    frag.append(corner);
    for (let y = 0; y < 8; y++) {
      const row: Light[] = [];
      for (let x = 0; x < 8; x++) {
        const cell = el("div", x === 7 ? "cell pad status" : "cell pad");
        cell.dataset.light = `grid-${y}-${x}`;
        cell.setAttribute("aria-hidden", "true");
        frag.append(cell);
        row.push({ el: cell, colour: "" });
      }
      this.grid.push(row);
      const sceneCell = el("div", "cell rail-cell");
      const b = el("button", "rail-hit scene");
      b.type = "button";
      b.dataset.slot = String(y);
      b.dataset.pos = `8,${y}`;
      b.tabIndex = -1;
      b.setAttribute("aria-label", sceneLabel(y, null));
      b.setAttribute("aria-disabled", "true");
      const light = el("span", "rail");
      light.dataset.light = `right-${y}`;
      light.append(el("span", "glyph", String(y + 1)));
      b.append(light);
      this.padButtons.set(`8,${y}`, b);
      sceneCell.append(b);
      frag.append(sceneCell);
      this.right.push({ el: light, colour: "" });
    }
    device.append(frag);
    this.setRoving(PAD_BUTTONS[0]);
  }

  private setRoving(p: Pos): void {
    this.focusPos = p;
    for (const [key, b] of this.padButtons) b.tabIndex = key === `${p.x},${p.y}` ? 0 : -1;
  }

  private paint(light: Light, colour: string): void {
    if (light.colour === colour) return;
    light.colour = colour;
    light.el.style.backgroundColor = colour;
    light.el.style.setProperty("--glow", colour);
    light.el.classList.toggle("lit", colour !== OFF_COLOUR && colour !== "#000000");
  }

  private paintLights(): void {
    const l = this.showLights ?? this.frameLights;
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) this.paint(this.grid[y][x], l.grid[y][x]);
    l.top.forEach((c, i) => this.paint(this.top[i], c));
    l.right.forEach((c, i) => this.paint(this.right[i], c));
    document.body.classList.toggle("show-playing", this.showLights !== null);
  }

  private renderView(): void {
    const v = this.view;
    // During a Show taps do nothing (the daemon swallows them); during a
    // Demo they drive the Demo, so they stay live.
    const actionsLive = v !== null && !this.showLights;
    const available = new Set<Action>(v && actionsLive ? v.available_actions : []);
    // Top rail buttons and the big action buttons.
    for (const a of ACTIONS) {
      const on = available.has(a);
      const x = TOP_RAIL.indexOf(a);
      const rail = this.padButtons.get(`${x},-1`);
      rail?.setAttribute("aria-disabled", String(!on));
      rail?.setAttribute("aria-label", on ? ACTION_LABELS[a] : `${ACTION_LABELS[a]} (not available now)`);
      const big = document.querySelector<HTMLButtonElement>(`.act[data-act="${a}"]`);
      if (big) {
        big.setAttribute("aria-disabled", String(!on));
        big.classList.toggle("on", on);
        big.style.setProperty("--act", tokenColour(`action:${a}:enabled`));
      }
    }
    // Scenes.
    for (let slot = 0; slot < 8; slot++) {
      const s = v ? sessionInSlot(v, slot) : null;
      const b = this.padButtons.get(`8,${slot}`);
      if (!b) continue;
      b.setAttribute("aria-label", sceneLabel(slot, s));
      b.setAttribute("aria-disabled", String(!s));
      b.setAttribute("aria-pressed", String(!!s?.selected));
      b.classList.toggle("selected", !!s?.selected);
    }
    // Headline.
    if (this.showLights) {
      byId("now-title").textContent = "A light show is playing";
      byId("now-detail").textContent = "The buttons wait until it ends.";
      byId("canvas-words").textContent = "The pad shows the light show.";
    } else if (v) {
      const h = headline(v);
      byId("now-title").textContent = h.title;
      byId("now-detail").textContent = h.detail;
      byId("canvas-words").textContent = `The pad shows ${glyphWords(v.selected_state)}.`;
    }
    this.renderAgents();
  }

  private renderAgents(): void {
    const v = this.view;
    const sessions = v?.sessions ?? [];
    keyedChildren(
      byId("agent-list"),
      sessions,
      (s) => String(s.slot),
      () => {
        const li = el("li");
        const b = el("button", "agent");
        b.type = "button";
        li.append(b);
        return li;
      },
      (li, s) => {
        const b = li.querySelector("button")!;
        b.dataset.slot = String(s.slot);
        b.setAttribute("aria-pressed", String(s.selected));
        b.classList.toggle("selected", s.selected);
        const sw = el("span", "swatch");
        sw.style.backgroundColor = accentColour(s.accent, true);
        sw.setAttribute("aria-hidden", "true");
        const scene = el("span", "agent-scene", `S${s.slot + 1}`);
        scene.setAttribute("aria-label", `Scene ${s.slot + 1}`);
        const name = el("span", "agent-name", s.label);
        const chip = el("span", "chip", stateChip(s.state));
        chip.dataset.state = s.state;
        chip.style.setProperty("--chip", tokenColour(`state:${s.state}:primary`));
        b.replaceChildren(sw, scene, name, chip);
      },
      () => document.querySelector<HTMLElement>(`#device [tabindex="0"]`),
    );
    byId("agents-empty").hidden = sessions.length > 0;
    const over = byId("overflow");
    const n = v?.overflow_count ?? 0;
    over.hidden = n === 0;
    over.textContent = n === 1 ? "+1 more agent is waiting for a free Scene." : `+${n} more agents are waiting for a free Scene.`;
  }

  /** Start buttons while nothing plays, Stop while something does. */
  private renderExperienceControls(): void {
    const e = this.experience;
    const active = !!e && (e.status === "starting" || e.status === "playing");
    document.querySelectorAll<HTMLButtonElement>("[data-exp]").forEach((b) => {
      b.setAttribute("aria-disabled", String(active));
      b.classList.toggle("primary", !active);
    });
    const stop = byId("exp-stop");
    stop.setAttribute("aria-disabled", String(!active));
    stop.classList.toggle("danger", active);
    byId("exp-now").textContent = active
      ? `${e!.kind === "show" ? "The Show" : "The Demo"} is playing on every connected pad.`
      : "Nothing is playing.";
  }

  private renderExperience(): void {
    this.renderExperienceControls();
    const e = this.experience;
    const box = byId("experience");
    const active = e && (e.status === "starting" || e.status === "playing" || e.status === "blocked");
    box.hidden = !active;
    if (e && active) {
      const kind = e.kind === "show" ? "Show" : "Demo";
      box.dataset.status = e.status;
      byId("exp-kind").textContent =
        e.status === "blocked" ? `${kind} can't start` : `${kind}${e.title ? ` · ${e.title}` : ""}${e.status === "starting" ? " · starting…" : ""}`;
      byId("exp-caption").textContent = e.status === "blocked" ? (e.reason ?? "") : (e.caption ?? "");
      byId("exp-detail").textContent = e.status === "blocked" ? "" : (e.detail ?? "");
      const prog = byId("exp-progress");
      prog.hidden = !(e.kind === "show" && e.duration_ms);
      if (e.duration_ms) {
        byId("exp-bar").style.width = `${Math.min(100, (100 * e.elapsed_ms) / e.duration_ms).toFixed(1)}%`;
      }
      if (e.status === "playing" && e.caption) this.say(e.caption);
      if (e.status === "blocked" && e.reason) this.say(`${kind} can't start: ${e.reason}`);
    }
    this.renderView();
  }

  // ------------------------------------------------------------------ sound

  private renderSound(): void {
    byId("sound").setAttribute("aria-pressed", String(this.sound.enabled));
  }

  private toggleSound(): void {
    this.sound.setEnabled(!this.sound.enabled);
    this.renderSound();
    this.say(this.sound.enabled ? "Sound on. This device plays the Demo's sounds and the Show's music." : "Sound off.");
  }

  // ------------------------------------------------------------------ admin

  private adminNote(text: string): void {
    byId("admin-note").textContent = text;
  }

  /** Marks the first answer to a Lets extension request. */
  private answered(kind: "devices" | "lan"): void {
    const i = this.pendingExtensions.indexOf(kind);
    if (i >= 0) this.pendingExtensions.splice(i, 1);
  }

  // ---------------------------------------------------------------- views

  /** The virtual pad, or "Pair a phone" (only what pairing needs). */
  private setView(view: PageView): void {
    this.pageView = view;
    document.body.dataset.view = view;
    byId("admin-title").textContent = view === "pair" ? "Pair a phone" : "Connect a phone";
    byId("show-pad").hidden = view !== "pair";
    document.title = view === "pair" ? "Pair a phone · Lets" : "Lets Pad";
    history.replaceState(null, "", location.pathname + location.search + viewFragment(view));
  }

  // ---------------------------------------------------------- phone access

  private onLAN(msg: LANMessage): void {
    this.answered("lan");
    const wasOn = this.lanEnabled;
    const wasBusy = this.lanBusy;
    this.lanEnabled = msg.enabled;
    this.lanSwitchable = msg.switchable;
    this.lanBusy = false;
    if (!msg.enabled) this.pairing = null;
    this.renderLAN();
    if (msg.problem) {
      this.adminNote(msg.problem);
      this.say(msg.problem);
    } else if (wasOn !== msg.enabled) {
      const note = msg.enabled
        ? "Phones on this network can connect now. Scan the QR code with the phone, or type the PIN on it."
        : "Phones can no longer connect. Every paired phone was disconnected.";
      this.adminNote(note);
      this.say(note);
    }
    if (wasBusy && wasOn !== msg.enabled) {
      // The button that was pressed is gone: keep keyboard focus on what
      // comes next, the code or the button to allow phones again.
      // The code arrives right after this message.
      if (msg.enabled) this.focusPairing = true;
      else byId("lan-allow").focus();
    }
  }

  /** Consent, the CLI hint, or the code and the way to switch off. */
  private renderLAN(): void {
    const on = this.lanEnabled;
    const sw = this.lanSwitchable;
    byId("lan-consent").hidden = !this.admin || on || sw !== true;
    byId("lan-off").hidden = !this.admin || on || sw !== false;
    byId("new-pairing").hidden = !on;
    byId("lan-stop").hidden = !on || sw !== true;
    byId("lan-stop-hint").hidden = !on || sw !== true;
    for (const id of ["lan-allow", "lan-stop"]) {
      const b = byId<HTMLButtonElement>(id);
      b.setAttribute("aria-disabled", String(this.lanBusy));
      b.setAttribute("aria-busy", String(this.lanBusy));
    }
    byId("lan-allow").textContent = this.lanBusy && !on ? "Switching on…" : "Let phones connect";
    byId("lan-stop").textContent = this.lanBusy && on ? "Switching off…" : "Stop letting phones connect";
    this.renderPairing();
  }

  /** The person's consent (on) or its withdrawal (off). */
  private switchLAN(on: boolean): void {
    if (this.lanBusy || this.lanSwitchable !== true) return;
    if (this.send(setLAN(on))) {
      this.lanBusy = true;
      this.adminNote("");
      this.renderLAN();
    }
  }

  private renderPairing(): void {
    window.clearInterval(this.pairingTimer);
    const p = this.pairing;
    const box = byId("pairing");
    const button = byId<HTMLButtonElement>("new-pairing");
    box.hidden = !p || !this.lanEnabled;
    button.textContent = p ? "Make a new code" : "Show a pairing code";
    if (!p) return;
    byId<HTMLImageElement>("qr").src = p.msg.qr_data_uri;
    const pin = p.msg.pin;
    byId("pin-digits").textContent = `${pin.slice(0, 3)} ${pin.slice(3)}`;
    byId("pin-digits").setAttribute("aria-label", `PIN ${pin.split("").join(" ")}`);
    let url = p.msg.pairing_url;
    const hash = url.indexOf("#");
    if (hash >= 0) url = url.slice(0, hash);
    byId("lan-url").textContent = url.replace(/\/$/, "");
    const tick = () => {
      const left = (p.until - Date.now()) / 1000;
      const exp = byId("pin-expiry");
      if (left <= 0) {
        box.classList.add("expired");
        exp.textContent = "This code has expired. Make a new one.";
        window.clearInterval(this.pairingTimer);
        return;
      }
      box.classList.remove("expired");
      exp.textContent = `Works once · expires in ${clock(left)}`;
    };
    tick();
    this.pairingTimer = window.setInterval(tick, 1000);
  }

  private renderDevices(): void {
    const box = byId("devices-box");
    box.hidden = this.devices === null;
    if (this.devices === null) return;
    keyedChildren(
      byId("device-list"),
      this.devices,
      (d) => d.id,
      () => el("li", "device-item"),
      (li, d) => {
        const dot = el("span", d.connected ? "dot on" : "dot");
        dot.setAttribute("aria-hidden", "true");
        const info = el("span", "device-info");
        info.append(el("span", "device-name", d.name || "Phone"));
        const when = formatPairedAt(d.paired_at);
        info.append(el("span", "device-meta", `${d.connected ? "Connected" : "Not connected"}${when ? ` · paired ${when}` : ""}`));
        // The button stays the same element, never taken out, across
        // redraws: focus on it stays.
        let b = li.querySelector<HTMLButtonElement>("button");
        if (!b) {
          b = el("button", "btn small danger-quiet", "Disconnect");
          b.type = "button";
          li.append(b);
        }
        for (const c of Array.from(li.children)) if (c !== b) c.remove();
        li.insertBefore(dot, b);
        li.insertBefore(info, b);
        b.dataset.device = d.id;
        b.setAttribute("aria-label", `Disconnect ${d.name || "this phone"}`);
      },
      () => document.getElementById("new-pairing"),
    );
    byId("devices-empty").hidden = this.devices.length > 0;
  }

  // ----------------------------------------------------------------- input

  private press(b: HTMLElement): void {
    if (b.getAttribute("aria-disabled") === "true") return;
    b.classList.add("pressed");
    window.setTimeout(() => b.classList.remove("pressed"), 140);
    if ("vibrate" in navigator) {
      try {
        navigator.vibrate(12);
      } catch {
        /* not allowed: fine */
      }
    }
  }

  private doAction(a: Action, source: HTMLElement): void {
    if (source.getAttribute("aria-disabled") === "true") {
      this.say(`${ACTION_LABELS[a]} is not available right now.`);
      return;
    }
    this.press(source);
    if (this.send(actionMessage(a))) this.say(`${ACTION_LABELS[a]} sent.`);
  }

  private doSelect(slot: number, source: HTMLElement): void {
    if (source.getAttribute("aria-disabled") === "true") {
      this.say(`Scene ${slot + 1} is empty.`);
      return;
    }
    this.press(source);
    this.send(selectSession(slot));
  }

  private wire(): void {
    const device = byId("device");
    device.addEventListener("click", (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLElement>("button");
      if (!b) return;
      const pos = b.dataset.pos?.split(",").map(Number);
      if (pos) this.setRoving({ x: pos[0], y: pos[1] });
      if (b.dataset.action) this.doAction(b.dataset.action as Action, b);
      else if (b.dataset.slot) this.doSelect(Number(b.dataset.slot), b);
    });
    device.addEventListener("keydown", (ev) => {
      const keys = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End"];
      if (!keys.includes(ev.key)) return;
      ev.preventDefault();
      const next = moveFocus(this.focusPos, ev.key as Arrow);
      this.setRoving(next);
      this.padButtons.get(`${next.x},${next.y}`)?.focus();
    });
    device.addEventListener("focusin", (ev) => {
      const pos = (ev.target as HTMLElement).dataset?.pos?.split(",").map(Number);
      if (pos) this.setRoving({ x: pos[0], y: pos[1] });
    });
    // A visible press as soon as the finger lands, like a real pad.
    const down = (ev: PointerEvent) => {
      const b = (ev.target as HTMLElement).closest<HTMLElement>("button");
      if (b && b.getAttribute("aria-disabled") !== "true") b.classList.add("held");
    };
    const up = () => document.querySelectorAll(".held").forEach((e) => e.classList.remove("held"));
    document.addEventListener("pointerdown", down);
    document.addEventListener("pointerup", up);
    document.addEventListener("pointercancel", up);

    document.querySelectorAll<HTMLButtonElement>(".act").forEach((b) =>
      b.addEventListener("click", () => this.doAction(b.dataset.act as Action, b)),
    );
    byId("agent-list").addEventListener("click", (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLElement>("button.agent");
      if (b?.dataset.slot) this.doSelect(Number(b.dataset.slot), b);
    });

    byId("pin-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.submitPin();
    });
    const pin = byId<HTMLInputElement>("pin");
    pin.addEventListener("input", () => {
      const digits = pinDigits(pin.value);
      const shown = digits.length > 3 ? `${digits.slice(0, 3)} ${digits.slice(3)}` : digits;
      if (pin.value !== shown) pin.value = shown;
      byId("pin-error").textContent = "";
      if (digits.length === 6 && !byId<HTMLButtonElement>("pin-submit").disabled) this.submitPin();
    });

    byId("lan-allow").addEventListener("click", () => this.switchLAN(true));
    byId("lan-stop").addEventListener("click", () => this.switchLAN(false));
    byId("show-pad").addEventListener("click", () => {
      this.setView("pad");
      byId("device").querySelector<HTMLElement>('[tabindex="0"]')?.focus();
    });
    byId("new-pairing").addEventListener("click", () => {
      if (this.send(createPairing())) this.adminNote("");
    });
    byId("revoke-all").addEventListener("click", () => {
      if (window.confirm("Disconnect every paired phone and tablet? They will need a new PIN to pair again.")) {
        this.send(revokeRemote());
      }
    });
    byId("device-list").addEventListener("click", (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLElement>("button[data-device]");
      if (b?.dataset.device) this.send(revokeDevice(b.dataset.device));
    });
    document.querySelectorAll<HTMLButtonElement>("[data-exp]").forEach((b) =>
      b.addEventListener("click", () => {
        if (b.getAttribute("aria-disabled") === "true") return;
        if (this.send(startExperience(b.dataset.exp === "show" ? "show" : "demo"))) this.adminNote("");
      }),
    );
    byId("exp-stop").addEventListener("click", (ev) => {
      if ((ev.currentTarget as HTMLElement).getAttribute("aria-disabled") === "true") return;
      this.send(stopExperience());
    });
    // Sound may only start after a gesture; a remembered "on" waits for one.
    const gesture = () => this.sound.gesture();
    document.addEventListener("pointerdown", gesture);
    document.addEventListener("keydown", gesture);
    byId("sound").addEventListener("click", () => this.toggleSound());
  }
}

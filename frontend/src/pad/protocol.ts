// Web Surface Protocol 1 as the pad app sees it (spec
// web-surface-protocol-1.md §7, §8): the messages the server sends, checked
// before use, and the only messages the app may send.

import { cleanLine } from "./text";

export const PROTOCOL = 1;

export const STATES = [
  "running",
  "waiting_for_reply",
  "user_typing",
  "waiting_for_approval",
  "success",
  "error",
  "cancelled",
] as const;
export type AgentState = (typeof STATES)[number];

/** Actions in the Visual Protocol's canonical order. */
export const ACTIONS = ["approve", "reject", "stop", "retry"] as const;
export type Action = (typeof ACTIONS)[number];

export const ACCENTS = ["cyan", "magenta", "lime", "orange", "violet", "teal", "rose", "sky"] as const;
export type Accent = (typeof ACCENTS)[number];

export interface SessionIndicator {
  slot: number;
  state: AgentState;
  selected: boolean;
  accent: Accent;
  label: string;
}

export interface View {
  selected_state: AgentState | null;
  frame: number;
  sessions: SessionIndicator[];
  available_actions: Action[];
  overflow_count: number;
  activity_motion: boolean;
}

export interface VisualFrame {
  state: string[][]; // 8 rows × 7 tokens
  selectors: string[]; // 8
  statuses: string[]; // 8
  actions: Record<Action, string>;
  overflow: string;
}

export interface SurfaceMessage {
  type: "surface";
  view: View;
  visual_frame: VisualFrame;
}

export interface AuthenticatedMessage {
  type: "authenticated";
  admin: boolean;
  session_token: string | null;
  lan_enabled: boolean;
}

export interface PairingMessage {
  type: "pairing";
  pin: string;
  pairing_url: string;
  qr_data_uri: string;
  expires_in: number;
}

export type ExperienceStatus = "idle" | "blocked" | "starting" | "playing";

export interface ExperienceState {
  type: "experience_state";
  status: ExperienceStatus;
  kind: "demo" | "show" | null;
  title: string | null;
  cue_index: number | null;
  caption: string | null;
  detail: string | null;
  elapsed_ms: number;
  duration_ms: number | null;
  tempo: number;
  /** Show soundtrack, relative to the app root (§8.3 of the experiences spec). */
  audio_asset: string | null;
  /** Demo earcon name, its slot (0–7, null = none) and event counter. */
  audio_cue: string | null;
  audio_slot: number | null;
  audio_sequence: number;
  /** Show lead-in on `starting`. */
  start_delay_ms: number;
  reason: string | null;
}

export interface PerformanceFrame {
  type: "performance_frame";
  grid: string[][]; // 8 × 8 "#rrggbb"
  top: string[];
  right: string[];
}

/** A paired device, from the Lets extension `devices` (admin only). */
export interface Device {
  id: string;
  name: string;
  paired_at: string;
  connected: boolean;
}

/**
 * Phone access, from the Lets extension `lan` (admin only): whether phones
 * on the network can reach the pad, whether this page may switch that,
 * the address phones open, and what went wrong with this page's last
 * switch.
 */
export interface LANMessage {
  type: "lan";
  enabled: boolean;
  switchable: boolean;
  lan_url: string | null;
  problem: string | null;
}

export type ServerMessage =
  | AuthenticatedMessage
  | LANMessage
  | PairingMessage
  | SurfaceMessage
  | ExperienceState
  | PerformanceFrame
  | { type: "remote_revoked" }
  | { type: "devices"; devices: Device[] }
  | { type: "device_revoked"; device: string }
  | { type: "error"; code: string; error: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function isInt(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
}
function isStr(v: unknown): v is string {
  return typeof v === "string";
}
function strOrNull(v: unknown): v is string | null {
  return v === null || typeof v === "string";
}
function isState(v: unknown): v is AgentState {
  return (STATES as readonly unknown[]).includes(v);
}
function isAction(v: unknown): v is Action {
  return (ACTIONS as readonly unknown[]).includes(v);
}
function isAccent(v: unknown): v is Accent {
  return (ACCENTS as readonly unknown[]).includes(v);
}
function tokens(v: unknown, n: number): v is string[] {
  return Array.isArray(v) && v.length === n && v.every(isStr);
}
const HEX = /^#[0-9a-f]{6}$/;
function colours(v: unknown, n: number): v is string[] {
  return Array.isArray(v) && v.length === n && v.every((c) => isStr(c) && HEX.test(c));
}

function parseView(v: unknown): View | null {
  if (!isObj(v)) return null;
  const { selected_state, frame, sessions, available_actions, overflow_count, activity_motion } = v;
  if (!(selected_state === null || isState(selected_state))) return null;
  if (!isInt(frame, 0) || !isInt(overflow_count, 0) || typeof activity_motion !== "boolean") return null;
  if (!Array.isArray(sessions) || sessions.length > 8) return null;
  const out: SessionIndicator[] = [];
  for (const s of sessions) {
    if (!isObj(s)) return null;
    if (!isInt(s.slot, 0, 7) || !isState(s.state) || typeof s.selected !== "boolean") return null;
    if (!isAccent(s.accent) || !isStr(s.label)) return null;
    out.push({ slot: s.slot, state: s.state, selected: s.selected, accent: s.accent, label: cleanLine(s.label) });
  }
  if (!Array.isArray(available_actions) || !available_actions.every(isAction)) return null;
  return {
    selected_state,
    frame,
    sessions: out,
    available_actions: [...new Set(available_actions)],
    overflow_count,
    activity_motion,
  };
}

function parseFrame(v: unknown): VisualFrame | null {
  if (!isObj(v)) return null;
  const { state, selectors, statuses, actions, overflow } = v;
  if (!Array.isArray(state) || state.length !== 8 || !state.every((row) => tokens(row, 7))) return null;
  if (!tokens(selectors, 8) || !tokens(statuses, 8) || !isStr(overflow) || !isObj(actions)) return null;
  const acts = {} as Record<Action, string>;
  for (const a of ACTIONS) {
    const t = actions[a];
    if (!isStr(t)) return null;
    acts[a] = t;
  }
  return { state: state as string[][], selectors, statuses, actions: acts, overflow };
}

function parseDevices(v: unknown): Device[] | null {
  if (!Array.isArray(v)) return null;
  const out: Device[] = [];
  for (const d of v) {
    if (!isObj(d) || !isStr(d.id) || !isStr(d.name)) return null;
    // connected: a flag, or the number of open connections.
    const connected = d.connected === true || (typeof d.connected === "number" && d.connected > 0);
    const pairedAt = isStr(d.paired_at) ? d.paired_at : typeof d.paired_at === "number" ? String(d.paired_at) : "";
    out.push({ id: d.id, name: d.name, paired_at: pairedAt, connected });
  }
  return out;
}

/**
 * Decodes one server message. Anything malformed or unknown gives null:
 * the app ignores it rather than drawing half a frame.
 */
export function parseServerMessage(raw: string): ServerMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObj(m) || m.protocol !== PROTOCOL || !isStr(m.type)) return null;
  switch (m.type) {
    case "authenticated":
      if (typeof m.admin !== "boolean" || !strOrNull(m.session_token) || typeof m.lan_enabled !== "boolean") return null;
      return { type: "authenticated", admin: m.admin, session_token: m.session_token, lan_enabled: m.lan_enabled };
    case "pairing":
      if (!isStr(m.pin) || !/^[0-9]{6}$/.test(m.pin) || !isStr(m.pairing_url) || !isStr(m.qr_data_uri)) return null;
      if (!m.qr_data_uri.startsWith("data:image/") || !isInt(m.expires_in, 0)) return null;
      return { type: "pairing", pin: m.pin, pairing_url: m.pairing_url, qr_data_uri: m.qr_data_uri, expires_in: m.expires_in };
    case "surface": {
      if (m.visual_protocol !== 1) return null;
      const view = parseView(m.view);
      const frame = parseFrame(m.visual_frame);
      return view && frame ? { type: "surface", view, visual_frame: frame } : null;
    }
    case "experience_state": {
      const statuses = ["idle", "blocked", "starting", "playing"];
      if (!statuses.includes(m.status as string)) return null;
      if (!(m.kind === null || m.kind === "demo" || m.kind === "show")) return null;
      if (!strOrNull(m.title) || !strOrNull(m.caption) || !strOrNull(m.detail) || !strOrNull(m.reason)) return null;
      return {
        type: "experience_state",
        status: m.status as ExperienceStatus,
        kind: m.kind,
        title: m.title,
        cue_index: isInt(m.cue_index, 0) ? m.cue_index : null,
        caption: m.caption,
        detail: m.detail,
        elapsed_ms: isInt(m.elapsed_ms, 0) ? m.elapsed_ms : 0,
        duration_ms: isInt(m.duration_ms, 1) ? m.duration_ms : null,
        tempo: typeof m.tempo === "number" && Number.isFinite(m.tempo) && m.tempo > 0 ? m.tempo : 1,
        audio_asset: isStr(m.audio_asset) ? m.audio_asset : null,
        audio_cue: isStr(m.audio_cue) ? m.audio_cue : null,
        audio_slot: isInt(m.audio_slot, 0, 7) ? m.audio_slot : null,
        audio_sequence: isInt(m.audio_sequence, 0) ? m.audio_sequence : 0,
        start_delay_ms: isInt(m.start_delay_ms, 0) ? m.start_delay_ms : 0,
        reason: m.reason,
      };
    }
    case "performance_frame":
      if (!Array.isArray(m.grid) || m.grid.length !== 8 || !m.grid.every((r) => colours(r, 8))) return null;
      if (!colours(m.top, 8) || !colours(m.right, 8)) return null;
      return { type: "performance_frame", grid: m.grid as string[][], top: m.top, right: m.right };
    case "remote_revoked":
      return { type: "remote_revoked" };
    case "devices": {
      const devices = parseDevices(m.devices);
      return devices ? { type: "devices", devices } : null;
    }
    case "device_revoked":
      return isStr(m.device) ? { type: "device_revoked", device: m.device } : null;
    case "lan":
      if (typeof m.enabled !== "boolean" || typeof m.switchable !== "boolean") return null;
      if (!strOrNull(m.lan_url) || !strOrNull(m.problem)) return null;
      return { type: "lan", enabled: m.enabled, switchable: m.switchable, lan_url: m.lan_url, problem: m.problem };
    case "error":
      return isStr(m.code) && isStr(m.error) ? { type: "error", code: m.code, error: m.error } : null;
    default:
      return null;
  }
}

// Client messages: the seven of §7 plus the four Lets admin extensions.

export function authenticate(credential: string | null): string {
  return credential
    ? JSON.stringify({ protocol: PROTOCOL, type: "authenticate", credential })
    : JSON.stringify({ protocol: PROTOCOL, type: "authenticate" });
}
export function actionMessage(action: Action): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "action", action });
}
export function selectSession(slot: number): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "select_session", slot });
}
export function createPairing(): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "create_pairing" });
}
export function revokeRemote(): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "revoke_remote" });
}
export function startExperience(kind: "demo" | "show"): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "start_experience", kind });
}
export function stopExperience(): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "stop_experience" });
}
export function listDevices(): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "list_devices" });
}
export function revokeDevice(device: string): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "revoke_device", device });
}
/** Asks for phone access now and after every change (Lets extension). */
export function getLAN(): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "get_lan" });
}
/** The person's consent to let phones connect, or its withdrawal (Lets extension). */
export function setLAN(enabled: boolean): string {
  return JSON.stringify({ protocol: PROTOCOL, type: "set_lan", enabled });
}

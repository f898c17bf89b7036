// What the pad shows: token colours (visual-protocol-1.md §6.2), the
// 80-light layout (§2), words for people and screen readers, and keyboard
// movement between the pad's buttons. No DOM here, so Node can test it.

import {
  ACCENTS,
  ACTIONS,
  type Accent,
  type Action,
  type AgentState,
  type PerformanceFrame,
  type SessionIndicator,
  type View,
  type VisualFrame,
} from "./protocol";

export const OFF_COLOUR = "#11171c";

const STATE_COLOURS: Record<AgentState, [string, string]> = {
  running: ["#3389e8", "#245f9d"],
  waiting_for_reply: ["#f2f5f7", "#8e99a2"],
  user_typing: ["#14bcc7", "#087b83"],
  waiting_for_approval: ["#f0b63f", "#9c7628"],
  success: ["#55c76a", "#347d43"],
  error: ["#ef5b64", "#963d43"],
  cancelled: ["#84909a", "#505960"],
};

const ACTION_COLOURS: Record<Action, string> = {
  approve: "#55c76a",
  reject: "#ef5b64",
  retry: "#3389e8",
  stop: "#ef5b64",
};

export const ACCENT_RGB: Record<Accent, [number, number, number]> = {
  cyan: [0, 174, 187],
  magenta: [200, 62, 201],
  lime: [112, 185, 45],
  orange: [230, 126, 34],
  violet: [118, 86, 199],
  teal: [0, 155, 131],
  rose: [217, 76, 118],
  sky: [55, 136, 216],
};

function hex(rgb: [number, number, number]): string {
  return "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");
}

/** Accent colour: full for the selected agent, × 0.48 (half up) otherwise. */
export function accentColour(accent: Accent, selected: boolean): string {
  const rgb = ACCENT_RGB[accent];
  return hex(selected ? rgb : (rgb.map((c) => Math.floor(c * 0.48 + 0.5)) as [number, number, number]));
}

/** The screen colour of a light token; unknown tokens are off. */
export function tokenColour(token: string): string {
  if (token === "idle") return "#46535c";
  if (token === "activity") return "#a9d5ff";
  if (token === "system:overflow") return "#f0b63f";
  const parts = token.split(":");
  if (parts.length === 3) {
    const [kind, name, variant] = parts;
    if (kind === "state" && name in STATE_COLOURS) {
      if (variant === "primary") return STATE_COLOURS[name as AgentState][0];
      if (variant === "summary") return STATE_COLOURS[name as AgentState][1];
    }
    if (kind === "action" && variant === "enabled" && name in ACTION_COLOURS) return ACTION_COLOURS[name as Action];
    if (kind === "accent" && (ACCENTS as readonly string[]).includes(name)) {
      if (variant === "selected") return accentColour(name as Accent, true);
      if (variant === "unselected") return accentColour(name as Accent, false);
    }
  }
  return OFF_COLOUR;
}

/** What sits on the top rail, left to right (§2). */
export const TOP_RAIL: readonly (Action | "overflow" | null)[] = [
  "approve",
  "reject",
  null,
  null,
  "overflow",
  null,
  "retry",
  "stop",
];

/** The 80 lights as colours: grid [row][column], top [column], right [row]. */
export interface Lights {
  grid: string[][];
  top: string[];
  right: string[];
}

/** The 80 lights of a compiled Visual Protocol frame. */
export function lightsFromFrame(f: VisualFrame): Lights {
  const grid = f.state.map((row, y) => [...row.map(tokenColour), tokenColour(f.statuses[y])]);
  const top = TOP_RAIL.map((role) => {
    if (role === null) return OFF_COLOUR;
    if (role === "overflow") return tokenColour(f.overflow);
    return tokenColour(f.actions[role]);
  });
  const right = f.selectors.map(tokenColour);
  return { grid, top, right };
}

/** The 80 lights of a Show cue (already colours). */
export function lightsFromPerformance(p: PerformanceFrame): Lights {
  return { grid: p.grid.map((r) => [...r]), top: [...p.top], right: [...p.right] };
}

/** Lights with every light off (before the first frame arrives). */
export function darkLights(): Lights {
  const row = () => Array.from({ length: 8 }, () => OFF_COLOUR);
  return { grid: Array.from({ length: 8 }, row), top: row(), right: row() };
}

// Words.

const STATE_WORDS: Record<AgentState, { chip: string; sentence: string; glyph: string }> = {
  running: { chip: "Working", sentence: "is working", glyph: "three blue dots" },
  waiting_for_reply: { chip: "Needs a reply", sentence: "is waiting for your reply", glyph: "a white question mark" },
  user_typing: { chip: "You're typing", sentence: "sees you typing", glyph: "a cyan chevron" },
  waiting_for_approval: {
    chip: "Needs approval",
    sentence: "is waiting for your approval",
    glyph: "an amber exclamation mark",
  },
  success: { chip: "Done", sentence: "finished", glyph: "a green smile" },
  error: { chip: "Error", sentence: "hit an error", glyph: "a red X" },
  cancelled: { chip: "Cancelled", sentence: "was cancelled", glyph: "a grey square" },
};

export function stateChip(s: AgentState): string {
  return STATE_WORDS[s].chip;
}
export function stateSentence(s: AgentState): string {
  return STATE_WORDS[s].sentence;
}
export function glyphWords(s: AgentState | null): string {
  return s === null ? "a dim dash: no agent selected" : STATE_WORDS[s].glyph;
}

export const ACTION_LABELS: Record<Action, string> = {
  approve: "Approve",
  reject: "Reject",
  stop: "Stop",
  retry: "Retry",
};

export function selectedSession(v: View): SessionIndicator | null {
  return v.sessions.find((s) => s.selected) ?? null;
}

export function sessionInSlot(v: View, slot: number): SessionIndicator | null {
  return v.sessions.find((s) => s.slot === slot) ?? null;
}

/** "Approve or Reject", "Stop", "" — the actions available right now. */
export function actionList(actions: readonly Action[]): string {
  const names = ACTIONS.filter((a) => actions.includes(a)).map((a) => ACTION_LABELS[a]);
  if (names.length <= 1) return names.join("");
  return names.slice(0, -1).join(", ") + " or " + names[names.length - 1];
}

/** The headline of the pad: what the selected agent is doing. */
export function headline(v: View): { title: string; detail: string } {
  const sel = selectedSession(v);
  if (v.sessions.length === 0) {
    return { title: "No agents yet", detail: "When an agent starts working, it appears here on its own Scene." };
  }
  if (!sel || v.selected_state === null) {
    return { title: "Pick an agent", detail: "Tap a Scene on the right to see what that agent is doing." };
  }
  const acts = actionList(v.available_actions);
  const sentence = `${sel.label} ${stateSentence(v.selected_state)}.`;
  if (acts) return { title: sentence, detail: `You can ${acts} now.` };
  return { title: sentence, detail: NO_ACTION_DETAIL[v.selected_state] };
}

/**
 * What the headline says when the pad has no button for the selected
 * agent: never "nothing to press" under "waiting for your approval" or
 * "your reply" — the agent does want something, only not from the pad.
 */
const NO_ACTION_DETAIL: Record<AgentState, string> = {
  running: "Nothing to press right now.",
  waiting_for_reply: "Reply to it where it runs; the pad has no button for that.",
  user_typing: "Nothing to press right now.",
  waiting_for_approval: "Answer it where it runs; the pad has no Approve button for it.",
  success: "Nothing to press right now.",
  error: "Nothing to press right now.",
  cancelled: "Nothing to press right now.",
};

/** What a screen reader should hear when the view changes; "" for nothing. */
export function announcement(prev: View | null, next: View): string {
  const parts: string[] = [];
  const before = prev ? selectedSession(prev) : null;
  const after = selectedSession(next);
  if (after && next.selected_state) {
    if (!before || before.slot !== after.slot || before.label !== after.label) {
      parts.push(`${after.label} selected: ${stateSentence(next.selected_state)}.`);
    } else if (prev?.selected_state !== next.selected_state) {
      parts.push(`${after.label} ${stateSentence(next.selected_state)}.`);
    }
  } else if (before && !after) {
    parts.push("No agent selected.");
  }
  for (const s of next.sessions) {
    if (s.selected) continue;
    const old = prev?.sessions.find((p) => p.slot === s.slot && p.label === s.label);
    if (!old) {
      parts.push(`${s.label} joined on Scene ${s.slot + 1}.`);
    } else if (old.state !== s.state && (s.state === "waiting_for_approval" || s.state === "waiting_for_reply")) {
      parts.push(`${s.label} ${stateSentence(s.state)} (Scene ${s.slot + 1}).`);
    }
  }
  const acts = actionList(next.available_actions);
  const oldActs = prev ? actionList(prev.available_actions) : "";
  if (acts !== oldActs && acts) parts.push(`${acts} available.`);
  if (next.overflow_count > (prev?.overflow_count ?? 0)) {
    parts.push(`${next.overflow_count} more ${next.overflow_count === 1 ? "agent has" : "agents have"} no Scene.`);
  }
  return parts.join(" ");
}

/** The accessible name of a Scene button. */
export function sceneLabel(slot: number, s: SessionIndicator | null): string {
  if (!s) return `Scene ${slot + 1}: empty`;
  return `Scene ${slot + 1}: ${s.label}, ${stateChip(s.state).toLowerCase()}${s.selected ? ", selected" : ""}`;
}

// Keyboard movement between the pad's buttons. Positions: the top rail is
// y = -1 (x 0..7), the Scenes are x = 8 (y 0..7).

export interface Pos {
  x: number;
  y: number;
}

export const PAD_BUTTONS: readonly Pos[] = [
  ...TOP_RAIL.flatMap((role, x) => (role && role !== "overflow" ? [{ x, y: -1 }] : [])),
  ...Array.from({ length: 8 }, (_, y) => ({ x: 8, y })),
];

export type Arrow = "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End";

/** The pad button an arrow key moves to from `from` (itself if none). */
export function moveFocus(from: Pos, key: Arrow): Pos {
  if (key === "Home") return PAD_BUTTONS[0];
  if (key === "End") return PAD_BUTTONS[PAD_BUTTONS.length - 1];
  const [dx, dy] = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[key];
  let best: Pos = from;
  let bestScore = Infinity;
  for (const p of PAD_BUTTONS) {
    const along = (p.x - from.x) * dx + (p.y - from.y) * dy;
    if (along <= 0) continue;
    const across = Math.abs((p.x - from.x) * dy) + Math.abs((p.y - from.y) * dx);
    const score = along + 2 * across;
    if (score < bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best;
}

/** "4:59", "0:07" for a countdown in seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "today 14:05", "3 May" — when a device was paired (ISO 8601 or Unix s). */
export function formatPairedAt(v: string, now = new Date()): string {
  if (!v) return "";
  const n = Number(v);
  const d = Number.isFinite(n) && /^\d+(\.\d+)?$/.test(v) ? new Date(n * 1000) : new Date(v);
  if (Number.isNaN(d.getTime())) return "";
  const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  if (d.toDateString() === now.toDateString()) return `today ${hm}`;
  return d.toLocaleDateString(undefined, { day: "numeric", month: "short" });
}

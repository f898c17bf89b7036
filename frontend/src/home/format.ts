// Pure helpers of the home page: words for times and for Claude's set-up.

/** "3 h 5 min", "42 s" — short and human. */
export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return `${Math.floor(h / 24)} days`;
}

/** "just now", "5 min ago", "yesterday", "3 days ago", or the date. */
export function formatWhen(ms: number, now: number): string {
  const s = Math.floor((now - ms) / 1000);
  if (s < 60) return "just now";
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.floor(h / 24);
  if (d === 1) return "yesterday";
  if (d < 14) return `${d} days ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

export interface ClaudeSetup {
  cli: boolean;
  cli_path?: string;
  /** What `claude --version` said. */
  version?: string;
  /** Older than the version Lets is tested with (tested). */
  old?: boolean;
  tested?: string;
  /** The page may offer its own Install Claude Code button. */
  installable?: boolean;
  /** An install runs now. */
  installing?: boolean;
  hooks: boolean;
  settings_path: string;
}

/** A status in plain words, with what a developer may want (a command) kept for a "Details" toggle. */
export interface Said {
  text: string;
  /** Shown behind "Details" ("" none). */
  detail: string;
}

/** What the page says about Claude: ready, partly set up, or not yet. */
export function claudeStatus(c: ClaudeSetup, canSetUp = false): { state: "ready" | "partial" | "missing" } & Said {
  // The words never send the person to a tray menu: on a desktop without
  // a tray host the home window is all there is (#21). With canSetUp the
  // page has its own "Set up Claude" button; without it (Lets runs with
  // no desktop) the terminal command is the way, kept behind "Details".
  const next = canSetUp ? "press “Set up Claude” below" : "run the command under “Details” in a terminal";
  const detail = canSetUp ? "" : "lets setup claude";
  // An older Claude Code than Lets is tested with may still work: say so
  // without alarm, and how to get the tested one.
  const old =
    c.cli && c.old && c.version
      ? ` Its version ${c.version} is older than ${c.tested ?? "the one"} Lets is tested with; if something does not work, ${c.installable ? "press “Install Claude Code” to get the tested one" : "update it"}.`
      : "";
  if (c.cli && c.hooks) {
    return { state: "ready", text: `Claude is set up: Claude Code is installed and tells Lets what it is doing.${old}`, detail: "" };
  }
  if (c.cli) {
    return {
      state: "partial",
      text: `Not yet: Claude Code is installed, but its settings do not call Lets yet. To connect them, ${next}.${old}`,
      detail,
    };
  }
  if (c.installing) {
    return { state: "missing", text: "Not yet: Claude Code is being installed. This takes a minute or two.", detail: "" };
  }
  if (c.installable) {
    return {
      state: "missing",
      text: `Not yet: Claude Code (the program Lets talks to Claude through) is not on this computer. Press “Install Claude Code”: Lets puts it in its own folder, no password needed. Then ${next}.`,
      detail,
    };
  }
  return {
    state: "missing",
    text: `Not yet: Claude Code (the program Lets talks to Claude through) is not installed on this computer. Install it, then ${next}.`,
    detail,
  };
}

/** What the Phones card says, and whether it offers its own "Pair a phone" button ("" nothing to say). */
export function phonesStatus(available: boolean, paired: number, canPair: boolean): Said {
  if (canPair) {
    return { text: paired === 0 ? "No phone is paired yet. Press “Pair a phone” to use one as a pad for Lets." : "", detail: "" };
  }
  if (!available || paired === 0) return { text: "No phone is paired yet. To pair one, run the command under “Details” in a terminal.", detail: "lets pad pair" };
  return { text: "", detail: "" };
}

/** The last name of a folder's path ("/" for the root): what the page shows of a folder. */
export function folderName(path: string): string {
  const parts = path.split("/").filter((p) => p !== "");
  return parts.length > 0 ? parts[parts.length - 1] : "/";
}

/** Where a folder is, in words: "your home folder › Documents", never a full path inside home. */
export function placeName(path: string, home: string): string {
  if (path === home) return "your home folder";
  if (home && path.startsWith(home.endsWith("/") ? home : home + "/")) {
    const rest = path.slice(home.length).split("/").filter((p) => p !== "");
    return ["your home folder", ...rest].join(" › ");
  }
  return path;
}

/** The first letter of a title, for a unique without an icon. */
export function initial(title: string): string {
  const ch = Array.from(title.trim())[0];
  return ch ? ch.toUpperCase() : "?";
}

/** What the chat card says under a conversation's title. */
export function chatMeta(c: { dir: string; updated: string; turns: number; window?: string }, now: number): string {
  const when = Date.parse(c.updated);
  const parts = [Number.isNaN(when) ? "not used yet" : `last used ${formatWhen(when, now)}`];
  if (c.dir) parts.push(`folder ${folderName(c.dir)}`);
  parts.push(c.turns === 1 ? "1 message" : `${c.turns} messages`);
  if (c.window) parts.push("open now");
  return parts.join(" · ");
}

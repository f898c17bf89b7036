// The home page's calls to the host. The page gets a one-time key in its
// address (#k=…) from Lets, trades it once for a home token and keeps
// that token for this tab only (sessionStorage is per origin and per tab).

import { readInstall, type ClaudeInstalled, type InstallProgress } from "./claude";
import type { CodexResult, CodexSetup } from "./codex";
import type { ClaudeSetup } from "./format";

/** One folder listing of GET /home/api/folders. */
export interface FolderList {
  path: string;
  /** "" at the home folder. */
  parent: string;
  home: string;
  folders: { name: string; path: string }[];
  /** Some folders were left out (there are very many). */
  more: boolean;
}

export interface HomeUnique {
  name: string;
  title: string;
  description: string;
  version: string;
  source: string;
  builtin: boolean;
  icon: boolean;
}

export interface SavedSession {
  id: string;
  unique: string;
  summary: string;
  handoff: boolean;
  ts: number;
}

export interface OpenWindow {
  window: string;
  unique: string;
  title: string;
  connected: boolean;
}

export interface PairedDevice {
  name: string;
  paired_at: string;
  connected: number;
}

/** One conversation of "Chat with Claude". */
export interface ChatInfo {
  id: string;
  title: string;
  dir: string;
  /** RFC 3339 */
  updated: string;
  turns: number;
  /** The chat window while the conversation is open. */
  window?: string;
}

export interface Overview {
  version: string;
  uniques: HomeUnique[];
  sessions: SavedSession[];
  windows: OpenWindow[];
  devices: { available: boolean; list: PairedDevice[] };
  claude: ClaudeSetup;
  /** Codex's set-up (older Lets: absent). */
  codex?: CodexSetup;
  /** available is false when this Lets runs without its chat part. */
  chat: { available: boolean; list: ChatInfo[] };
  /** What the page may do itself that the tray menu offers too. */
  actions?: { pair_phone: boolean; setup_claude: boolean; setup_codex?: boolean };
  problems: string[];
}

/** How "Set up Claude" went, in the person's words. */
export interface SetupResult {
  done: boolean;
  text: string;
  detail: string;
}

export interface InstallDone {
  name: string;
  title: string;
  version: string;
  warnings: string[];
}

/** An answer of the host that is not a success, with its words. */
export class HostError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const storageKey = "lets-home-token";

async function errorOf(res: Response): Promise<HostError> {
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    return new HostError(res.status, body.error?.code ?? "error", body.error?.message ?? `Lets answered ${res.status}.`);
  } catch {
    return new HostError(res.status, "error", `Lets answered ${res.status}.`);
  }
}

export class HomeAPI {
  private token = "";

  /** Takes the key from the address (and removes it), or the tab's token. */
  async start(loc: Location, hist: History, store: Storage | null): Promise<boolean> {
    const key = new URLSearchParams(loc.hash.replace(/^#/, "")).get("k");
    if (key) {
      hist.replaceState(null, "", loc.pathname + loc.search);
      const res = await fetch("/home/api/claim", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ key }),
      });
      if (!res.ok) throw await errorOf(res);
      this.token = ((await res.json()) as { token: string }).token;
      store?.setItem(storageKey, this.token);
      return true;
    }
    this.token = store?.getItem(storageKey) ?? "";
    return this.token !== "";
  }

  forget(store: Storage | null): void {
    this.token = "";
    store?.removeItem(storageKey);
  }

  /** A unique's icon, fetched with the token in the header (never in the address). */
  async icon(name: string): Promise<Blob> {
    return (await this.call("GET", `/home/api/icon/${encodeURIComponent(name)}`)).blob();
  }

  /** One call with the home token; a failed answer throws its HostError. */
  async call(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, {
      method,
      headers,
      cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  async overview(): Promise<Overview> {
    return (await (await this.call("GET", "/home/api/overview")).json()) as Overview;
  }

  /** Opens a window (the host's own open); url is set when no native window was started. */
  async open(unique: string, resume?: string): Promise<{ window: string; url?: string }> {
    const res = await this.call("POST", "/home/api/open", resume ? { unique, resume } : { unique });
    return (await res.json()) as { window: string; url?: string };
  }

  /** Opens a conversation ("" or none: a new one, in folder when given) in its chat window. */
  async chat(conversation?: string, folder?: string): Promise<{ window: string }> {
    const body = conversation ? { conversation } : folder ? { folder } : {};
    const res = await this.call("POST", "/home/api/chat", body);
    return (await res.json()) as { window: string };
  }

  /** The folders inside path (none: the home folder), for choosing where a new chat works. */
  async folders(path?: string): Promise<FolderList> {
    const q = path ? `?path=${encodeURIComponent(path)}` : "";
    return (await (await this.call("GET", `/home/api/folders${q}`)).json()) as FolderList;
  }

  /** Deletes a conversation (its window closes; Claude stops). */
  async deleteChat(id: string): Promise<void> {
    await this.call("DELETE", `/home/api/chat/${encodeURIComponent(id)}`);
  }

  /** Opens the pad page's pairing view in the browser (what the tray's "Pair a phone…" does). */
  async pairPhone(): Promise<void> {
    await this.call("POST", "/home/api/pair-phone", {});
  }

  /** Installs Claude Code into Lets' own folder, calling progress for each step; signal cancels it. */
  async installClaude(progress: (p: InstallProgress) => void, signal: AbortSignal): Promise<ClaudeInstalled> {
    const res = await fetch("/home/api/install-claude", {
      method: "POST",
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      cache: "no-store",
      body: "{}",
      signal,
    });
    if (!res.ok) throw await errorOf(res);
    return readInstall(res, progress);
  }

  /** Connects Claude Code to Lets (what the tray's "Set up Claude…" does). */
  async setupClaude(): Promise<SetupResult> {
    return (await (await this.call("POST", "/home/api/setup-claude", {})).json()) as SetupResult;
  }

  /** Gives Codex Lets' tools (`lets setup codex`), or takes them out again (remove). */
  async setupCodex(remove: boolean): Promise<CodexResult> {
    return (await (await this.call("POST", remove ? "/home/api/remove-codex" : "/home/api/setup-codex", {})).json()) as CodexResult;
  }

  async remove(name: string): Promise<void> {
    await this.call("DELETE", `/home/api/uniques/${encodeURIComponent(name)}`);
  }

  /** Installs from source, calling progress for each step as it happens. */
  async install(source: string, progress: (line: string) => void): Promise<InstallDone> {
    const res = await this.call("POST", "/home/api/install", { source });
    if (!res.body) throw new HostError(0, "error", "This browser cannot read the install's progress.");
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const msg = JSON.parse(line) as {
          progress?: string;
          done?: InstallDone;
          error?: { code: string; message: string };
        };
        if (msg.progress) progress(msg.progress);
        if (msg.done) return msg.done;
        if (msg.error) throw new HostError(200, msg.error.code, msg.error.message);
      }
      if (done) break;
    }
    throw new HostError(0, "error", "The install stopped before it said how it went. Check that Lets is still running and try again.");
  }
}

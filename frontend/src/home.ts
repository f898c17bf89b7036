// The home page: tells the person whether Lets is running, which version,
// and for how long. It asks only /lip/health, which holds nothing secret.

interface Health {
  ok: boolean;
  version: string;
  uptime_s: number;
}

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

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`home page is missing #${id}`);
  return el;
}

function show(state: "ok" | "down" | "checking", text: string): void {
  byId("status").dataset.state = state;
  byId("status-text").textContent = text;
}

async function refresh(): Promise<void> {
  show("checking", "Checking whether Lets is running…");
  try {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 3000);
    const res = await fetch("/lip/health", { cache: "no-store", signal: controller.signal });
    clearTimeout(timer);
    if (!res.ok) throw new Error(`status ${res.status}`);
    const h = (await res.json()) as Health;
    show("ok", "Lets is running and ready.");
    byId("version").textContent = h.version;
    byId("uptime").textContent = formatUptime(h.uptime_s);
  } catch {
    show("down", "Lets is not answering. Start it again from your apps menu or with `lets`.");
    byId("uptime").textContent = "—";
  }
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    byId("refresh").addEventListener("click", () => void refresh());
    void refresh();
    setInterval(() => void refresh(), 30_000);
  });
}

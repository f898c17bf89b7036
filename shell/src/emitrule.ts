// What a unique may emit through lip.emit (spec lip-1 §3), decided in the
// SDK so a mistake throws at the call, where its author sees it. The host
// serves the SDK with the unique's declarations filled in; the shell and
// the host still check every event again.

import { domainOf, isReserved } from "./envelope";

/** What the unique declared, as far as emitting goes. */
export interface Declared {
  unique: string;
  events: string[];
  export: string;
  snapshot: string;
}

/**
 * Reads the declarations the host put into the SDK. Returns null when the
 * text was not filled in (the SDK then leaves the checks to the shell).
 */
export function parseDeclared(text: string): Declared | null {
  if (text.startsWith("__LETS_")) return null;
  try {
    const v = JSON.parse(text) as Partial<Declared>;
    if (!v || typeof v.unique !== "string" || !Array.isArray(v.events)) return null;
    return {
      unique: v.unique,
      events: v.events.filter((e): e is string => typeof e === "string"),
      export: typeof v.export === "string" ? v.export : "",
      snapshot: typeof v.snapshot === "string" ? v.snapshot : "",
    };
  } catch {
    return null;
  }
}

/**
 * Why the unique may not emit type, quoting the rule; "" when it may.
 * With no declarations (null) only the reserved domains are refused.
 */
export function emitRefusal(type: string, d: Declared | null): string {
  const call = `lip.emit("${type}")`;
  if (type === "entity.summon") return "";
  if (type === "media.image") {
    return `${call}: images reach Claude through lip.upload(blob), which stores the file and emits media.image for you`;
  }
  if (d && (d.events.includes(type) || type === d.export || type === d.snapshot)) {
    return isReserved(type) ? reservedRule(call, type) : "";
  }
  if (isReserved(type)) return reservedRule(call, type);
  if (!d) return "";
  const declared = d.events.length ? d.events.join(", ") : "none yet";
  return (
    `${call}: ${type} is not an event ${d.unique} declares. LIP 1 §3: a unique emits only the events in ` +
    `unique.json "events" (declared: ${declared}), its session export/snapshot types (use lip.export() and ` +
    `lip.snapshot()) and entity.summon (use lip.summon()). Add "${type}" to "events" to send it.`
  );
}

function reservedRule(call: string, type: string): string {
  return (
    `${call}: "${domainOf(type)}" is a reserved domain (LIP 1 §3); a unique emits only its own declared events, ` +
    `lip.summon(), lip.export(), lip.snapshot() and lip.upload()`
  );
}

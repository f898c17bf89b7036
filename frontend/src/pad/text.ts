// Text an agent supplies (a session's label) shown safely on the pad page:
// one line, no control characters, and no bidirectional controls, which
// could make the text after a label read as something else. The daemon
// keeps the label as the agent sent it; only what is shown is cleaned.

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// C0 and C1 controls and DEL, except the whitespace handled below.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F]/g;

/** cleanLine returns s as one readable line of at most max characters. */
export function cleanLine(s: string, max = 60): string {
  let t = s.replace(BIDI, "").replace(CONTROL, "\uFFFD");
  t = t.replace(/\s+/g, " ").trim();
  const chars = Array.from(t);
  if (max > 0 && chars.length > max) {
    t = chars.slice(0, max - 1).join("").trimEnd() + "…";
  }
  return t;
}

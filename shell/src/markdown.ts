// Markdown-lite for chat (spec lip-1 §4.3, issue #11): paragraphs, fenced
// and inline code, bold, italics, simple lists. Links are kept as text:
// the shell never fetches or opens anything a message points at, so a
// message cannot make the window load a URL or leak that it was read.
// The result is plain data; chat.ts turns it into DOM with textContent.

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong"; text: string }
  | { kind: "em"; text: string }
  | { kind: "link"; label: string; url: string };

export type Block =
  | { kind: "p"; inlines: Inline[] }
  | { kind: "code"; lang: string; text: string; open: boolean }
  | { kind: "list"; ordered: boolean; items: Inline[][] };

// Written this way so the minified bundle keeps no raw line breaks
// (esbuild turns "\n" into a template literal holding one).
const NL = JSON.parse('"\\n"') as string;
const FENCE = /^\s*```\s*([A-Za-z0-9_+.-]{0,32})\s*$/;
const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,4}[.)]\s+(.*)$/;

/** Splits text into blocks. An unclosed fence (mid-stream) is an open code block. */
export function parseMarkdownLite(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, NL).split(NL);
  const blocks: Block[] = [];
  let para: string[] = [];
  const flushPara = () => {
    if (para.length) blocks.push({ kind: "p", inlines: parseInlines(para.join(NL)) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const body: string[] = [];
      let closed = false;
      for (i++; i < lines.length; i++) {
        if (/^\s*```\s*$/.test(lines[i])) {
          closed = true;
          break;
        }
        body.push(lines[i]);
      }
      blocks.push({ kind: "code", lang: fence[1], text: body.join(NL), open: !closed });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flushPara();
      const ordered = !bullet;
      const last = blocks[blocks.length - 1];
      const item = parseInlines((bullet ?? numbered)![1]);
      if (last && last.kind === "list" && last.ordered === ordered) last.items.push(item);
      else blocks.push({ kind: "list", ordered, items: [item] });
      continue;
    }
    if (line.trim() === "") {
      flushPara();
      continue;
    }
    para.push(line);
  }
  flushPara();
  return blocks;
}

// One pass over the text: `code`, **strong**, *em* / _em_, [label](url),
// and bare http(s) URLs (kept as link parts so they can be styled, never
// made clickable).
const INLINE = /`([^`\n]+)`|\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\n]+)\*(?!\w)|(?<!\w)_([^_\n]+)_(?!\w)|\[([^\]\n]{1,200})\]\(([^)\s]{1,2000})\)|\b(https?:\/\/[^\s<>()]{1,2000})/g;

export function parseInlines(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  const push = (part: Inline) => {
    const prev = out[out.length - 1];
    if (part.kind === "text" && prev?.kind === "text") prev.text += part.text;
    else out.push(part);
  };
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) push({ kind: "text", text: text.slice(last, at) });
    if (m[1] !== undefined) push({ kind: "code", text: m[1] });
    else if (m[2] !== undefined) push({ kind: "strong", text: m[2] });
    else if (m[3] !== undefined) push({ kind: "em", text: m[3] });
    else if (m[4] !== undefined) push({ kind: "em", text: m[4] });
    else if (m[5] !== undefined) push({ kind: "link", label: m[5], url: m[6] });
    else push({ kind: "link", label: m[7], url: m[7] });
    last = at + m[0].length;
  }
  if (last < text.length) push({ kind: "text", text: text.slice(last) });
  return out;
}

/** How a link reads as text: "label (url)", or the url alone. */
export function linkText(l: { label: string; url: string }): string {
  return l.label === l.url ? l.url : `${l.label} (${l.url})`;
}

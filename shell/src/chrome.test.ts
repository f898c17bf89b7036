// Run by shell/chrome_test.go through Node's test runner: the pure parts
// of chat, components, toasts and prompts (issue #11).
import { test } from "node:test";
import assert from "node:assert/strict";
import { linkText, parseInlines, parseMarkdownLite } from "./markdown";
import { Coalescer, type Timers } from "./coalesce";
import { ChatStream, checkThemeVars, cleanEntries } from "./protocol";
import { appName, fileAndFolder, oneLine, PromptQueue, promptView, QUEUE_MAX } from "./prompts";

test("markdown-lite: paragraphs, lists and a fenced code block", () => {
  const blocks = parseMarkdownLite("First line\nsame paragraph\n\nSecond\n\n- a\n- b\n1. one\n\n```ts\nconst x = 1;\n```\nafter");
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ["p", "p", "list", "list", "code", "p"],
  );
  assert.deepEqual(blocks[0], { kind: "p", inlines: [{ kind: "text", text: "First line\nsame paragraph" }] });
  assert.equal(blocks[2].kind === "list" && blocks[2].items.length, 2);
  assert.equal(blocks[3].kind === "list" && blocks[3].ordered, true);
  assert.deepEqual(blocks[4], { kind: "code", lang: "ts", text: "const x = 1;", open: false });
});

test("markdown-lite: a fence still open mid-stream is an open code block", () => {
  const [p, code] = parseMarkdownLite("Here:\n```py\nprint(1)");
  assert.equal(p.kind, "p");
  assert.deepEqual(code, { kind: "code", lang: "py", text: "print(1)", open: true });
});

test("markdown-lite: links are text parts, never anything to fetch", () => {
  const parts = parseInlines("See [the docs](https://example.com/a?b=1) or https://x.test/y and `code` **bold** *it*.");
  assert.deepEqual(parts, [
    { kind: "text", text: "See " },
    { kind: "link", label: "the docs", url: "https://example.com/a?b=1" },
    { kind: "text", text: " or " },
    { kind: "link", label: "https://x.test/y", url: "https://x.test/y" },
    { kind: "text", text: " and " },
    { kind: "code", text: "code" },
    { kind: "text", text: " " },
    { kind: "strong", text: "bold" },
    { kind: "text", text: " " },
    { kind: "em", text: "it" },
    { kind: "text", text: "." },
  ]);
  assert.equal(linkText({ label: "the docs", url: "https://example.com" }), "the docs (https://example.com)");
  assert.equal(linkText({ label: "https://x.test", url: "https://x.test" }), "https://x.test");
  // HTML stays text: the renderer only ever sets textContent.
  assert.deepEqual(parseInlines("<img src=x onerror=alert(1)>"), [{ kind: "text", text: "<img src=x onerror=alert(1)>" }]);
  assert.deepEqual(parseInlines("snake_case_name and 2*3*4"), [{ kind: "text", text: "snake_case_name and 2*3*4" }]);
});

test("chat stream out of order: a later chunk waits for the ones before it", () => {
  const s = new ChatStream();
  s.add({ text: "world", seq: 2 });
  assert.equal(s.text(), "", "seq 2 alone shows nothing yet");
  s.add({ text: "Hello ", seq: 1 });
  assert.equal(s.text(), "Hello world");
  s.add({ text: "!", seq: 4, done: true });
  assert.equal(s.text(), "Hello world");
  assert.equal(s.done, false);
  s.add({ text: " again", seq: 3 });
  assert.equal(s.text(), "Hello world again!");
  assert.equal(s.done, true);
  const z = new ChatStream();
  z.add({ text: "b", seq: 1 });
  z.add({ text: "a", seq: 0 });
  assert.equal(z.text(), "ab", "streams may count from 0");
  const auto = new ChatStream();
  auto.add({ text: "whole reply", done: true });
  assert.equal(auto.text(), "whole reply");
  assert.equal(auto.done, true);
});

function fakeTimers() {
  let now = 0;
  const due: { at: number; fn: () => void; id: number }[] = [];
  let next = 1;
  const timers: Timers = {
    now: () => now,
    set: (fn, ms) => {
      due.push({ at: now + ms, fn, id: next });
      return next++;
    },
    clear: (h) => {
      const i = due.findIndex((d) => d.id === h);
      if (i >= 0) due.splice(i, 1);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (let guard = 0; guard < 100; guard++) {
      due.sort((a, b) => a.at - b.at);
      if (!due.length || due[0].at > now) return;
      due.shift()?.fn();
    }
  };
  return { timers, advance };
}

test("coalesced change: first at once, then the latest value per 150 ms", () => {
  const { timers, advance } = fakeTimers();
  const sent: number[] = [];
  const c = new Coalescer<number>((v) => sent.push(v), 150, timers);
  c.push(1);
  assert.deepEqual(sent, [1]);
  advance(20);
  c.push(2);
  advance(20);
  c.push(3);
  advance(20);
  c.push(4);
  assert.deepEqual(sent, [1], "within the window nothing more goes");
  advance(90);
  assert.deepEqual(sent, [1, 4], "the latest value goes when the window ends");
  advance(500);
  c.push(5);
  assert.deepEqual(sent, [1, 4, 5], "after a quiet window the next change goes at once");
  c.push(6);
  c.flush();
  assert.deepEqual(sent, [1, 4, 5, 6], "flush (a slider's commit) sends the pending one now");
  advance(1000);
  assert.deepEqual(sent, [1, 4, 5, 6], "nothing is sent twice");
  c.push(7);
  c.push(8);
  c.cancel();
  advance(1000);
  assert.deepEqual(sent, [1, 4, 5, 6, 7], "cancel drops the pending value");
});

test("a 60-change drag sends at most one change per window", () => {
  const { timers, advance } = fakeTimers();
  const sent: number[] = [];
  const c = new Coalescer<number>((v) => sent.push(v), 150, timers);
  for (let i = 1; i <= 60; i++) {
    c.push(i);
    advance(16);
  }
  advance(200);
  assert.ok(sent.length <= Math.ceil((60 * 16) / 150) + 1, `sent ${sent.length}`);
  assert.equal(sent[sent.length - 1], 60, "the last value always arrives");
});

test("theme validation: --lets-* names with plain values only", () => {
  const r = checkThemeVars({ "--lets-accent": "rgb(10, 20, 30)", "--lets-radius": "14px", "--lets-bg": "url(https://x)", "--other": "red", "--lets-fg": "red;}" });
  assert.deepEqual(r.applied, { "--lets-accent": "rgb(10, 20, 30)", "--lets-radius": "14px" });
  assert.deepEqual(r.refused.map((x) => x.name).sort(), ["--lets-bg", "--lets-fg", "--other"]);
});

test("approval card: plain words first, the raw request under Details, deny first", () => {
  const v = promptView({ id: "a1", kind: "approval", tool: "Bash", summary: "rm -rf build\n  and rebuild" });
  assert.equal(v.heading, "Claude wants to run a command on this computer");
  assert.match(v.detail, /Deny is always safe/);
  assert.deepEqual(v.details, [
    { label: "Tool", value: "Bash" },
    { label: "Command", value: "rm -rf build and rebuild" },
  ]);
  assert.equal(v.tag, "Command");
  assert.deepEqual(v.choices.map((c) => c.choice), ["deny", "allow"]);
  assert.equal(promptView({ id: "a1b", kind: "approval", tool: "Bash", summary: "ls", label: "Lets" }).heading, "Claude wants to run a command in Lets");
  // A Codex card (issue #25) names Codex, never Claude.
  const cx = promptView({ id: "a1x", kind: "approval", tool: "Bash", summary: "rm -r build", label: "garden", agent: "Codex" });
  assert.equal(cx.heading, "Codex wants to run a command in garden");
  assert.doesNotMatch(cx.heading + cx.detail, /Claude/);
  // Claude's own words for it lead, when it gave them.
  assert.equal(promptView({ id: "a1c", kind: "approval", tool: "Bash", summary: "npm test", about: "Run the tests." }).heading, "Claude wants to run a command on this computer: Run the tests");
  assert.equal(promptView({ id: "a1d", kind: "approval", tool: "Task", summary: "{}", about: "Explore the code" }).heading, "Claude wants to start a helper for part of the work: Explore the code");
  assert.equal(promptView({ id: "a1e", kind: "approval", tool: "Edit", summary: "a.txt", about: "ignored" }).heading, "Claude wants to change the file a.txt");
  // Long raw text is cut; the plain words never carry it.
  const long = promptView({ id: "a2", kind: "approval", tool: "X", summary: "y".repeat(500) });
  assert.equal(long.details[1].value.length, 200);
  assert.equal(long.heading, "Claude wants to use a tool called “X”");

  // Files: the name and its folder, never the whole path.
  const edit = promptView({ id: "a3", kind: "approval", tool: "Edit", summary: "/home/me/Lets/notes.txt" });
  assert.equal(edit.heading, "Claude wants to change the file notes.txt in Lets");
  assert.deepEqual(edit.details[1], { label: "File", value: "/home/me/Lets/notes.txt" });
  assert.equal(promptView({ id: "a4", kind: "approval", tool: "Write", summary: "~/My Notes/plan.md" }).heading, "Claude wants to write the file plan.md in My Notes");
  assert.equal(promptView({ id: "a5", kind: "approval", tool: "Read", summary: "notes.md", label: "board" }).heading, "Claude wants to read the file notes.md in board");
  assert.equal(promptView({ id: "a6", kind: "approval", tool: "MultiEdit", summary: "notes.md" }).heading, "Claude wants to change the file notes.md");
  assert.equal(promptView({ id: "a7", kind: "approval", tool: "Edit", summary: '{"old_string":"a"}' }).heading, "Claude wants to change a file");
  assert.equal(promptView({ id: "a8", kind: "approval", tool: "WebFetch", summary: '{"url":"https://example.com/a?b=1","prompt":"x"}' }).heading, "Claude wants to open a web page on example.com");
  assert.equal(promptView({ id: "a9", kind: "approval", tool: "WebSearch", summary: '{"query":"x"}' }).heading, "Claude wants to search the web");
  assert.equal(promptView({ id: "a10", kind: "approval", tool: "Grep", summary: '{"pattern":"x"}', label: "Lets" }).heading, "Claude wants to look through your files in Lets");
  assert.equal(promptView({ id: "a11", kind: "approval", tool: "mcp__lets__open_window", summary: "{}" }).heading, "Claude wants to use “open window” from lets");
  assert.equal(promptView({ id: "a12", kind: "approval" }).heading, "Claude wants to do something");
  assert.deepEqual(fileAndFolder("C:\\Users\\me\\Lets\\a.txt"), { file: "a.txt", folder: "Lets" });

  // The allow dialog: the app by name, no "unique", no "user's rights".
  const ex = promptView({ id: "e1", title: "Board", language: "python", question: "Allow Board to run python on this computer?" });
  assert.equal(ex.heading, "Board wants to run a Python program on this computer");
  assert.deepEqual(ex.choices.map((c) => c.choice), ["deny", "once", "always"]);
  assert.equal(ex.tag, "Board");
  assert.deepEqual(ex.details, [{ label: "Language", value: "python" }]);
  assert.match(ex.detail, /lasts until Board is updated/);
  assert.doesNotMatch(ex.heading + ex.detail, /unique|user's rights/i);
  assert.equal(promptView({ id: "e2", title: "Hello", language: "shell" }).heading, "Hello wants to run commands on this computer");
  assert.equal(promptView({ id: "e3", language: "javascript" }).heading, "This app wants to run a JavaScript program on this computer");
  assert.equal(promptView({ id: "e4", title: "Hello — say hi to Claude", language: "python" }).heading, "Hello wants to run a Python program on this computer");
  assert.equal(appName("Board: plans and notes"), "Board");
  assert.equal(appName("Half-Life"), "Half-Life");
  assert.equal(oneLine("  a \n\t b  ", 10), "a b");
});

test("prompt queue: one shown, a bounded queue, dismissed by id without an answer", () => {
  const q = new PromptQueue();
  assert.equal(q.offer({ id: "a" }), "show");
  assert.equal(q.current?.id, "a");
  for (let i = 0; i < QUEUE_MAX; i++) assert.equal(q.offer({ id: `w${i}` }), "wait");
  assert.equal(q.offer({ id: "late" }), "refuse", "a full queue refuses");
  assert.deepEqual(q.queued, ["w0", "w1", "w2"]);

  // A waiting card answered elsewhere leaves the queue; the one shown stays.
  assert.equal(q.dismiss("w1"), "waiting");
  assert.deepEqual(q.queued, ["w0", "w2"]);
  assert.equal(q.current?.id, "a");
  assert.equal(q.dismiss("nope"), "none");

  // The card on screen is taken down by its owner, then the next shows.
  assert.equal(q.dismiss("a"), "current");
  assert.equal(q.advance()?.id, "w0");
  assert.equal(q.dismiss("a"), "none", "a card is dismissed once");
  assert.equal(q.advance()?.id, "w2");
  assert.equal(q.advance(), null);
  assert.equal(q.current, null);
  assert.equal(q.offer({ id: "b" }), "show", "an empty queue shows at once");
});

test("docked chat: a saved conversation keeps only well-formed turns", () => {
  const got = cleanEntries([
    { role: "human", text: "Hi", at: "2026-12-01T12:00:00Z" },
    { role: "claude", text: "Hello!", at: 5 },
    { role: "robot", text: "beep" },
    { role: "human" },
    "nope",
    null,
    { role: "human", kind: "choice", text: "Chose: Pixel", at: "" },
    { role: "claude", kind: "choice", text: "not a pick" },
    { role: "human", text: "", attachments: [{ path: "/u/a.png", mime: "image/png" }, { mime: "image/png" }, 7] },
    { role: "human", text: "" },
  ]);
  assert.deepEqual(got, [
    { role: "human", text: "Hi", at: "2026-12-01T12:00:00Z" },
    { role: "claude", text: "Hello!", at: "" },
    { role: "human", kind: "choice", text: "Chose: Pixel", at: "" },
    { role: "claude", text: "not a pick", at: "" },
    { role: "human", text: "", at: "", attachments: [{ path: "/u/a.png", mime: "image/png" }] },
  ]);
  assert.deepEqual(cleanEntries({ messages: [] }), []);
  const many = Array.from({ length: 250 }, (_, i) => ({ role: "human", text: `m${i}` }));
  const kept = cleanEntries(many);
  assert.equal(kept.length, 200);
  assert.equal(kept[0].text, "m50");
  assert.equal(cleanEntries([{ role: "claude", text: "x".repeat(30000) }])[0].text.length, 20000);
});

// Run by frontend/home_ts_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { codexStatus } from "./codex";
import { chatMeta, claudeStatus, folderName, formatUptime, formatWhen, initial, phonesStatus, placeName } from "./format";

test("formatUptime is short and human", () => {
  assert.equal(formatUptime(42.9), "42 s");
  assert.equal(formatUptime(125), "2 min");
  assert.equal(formatUptime(3 * 3600 + 5 * 60), "3 h 5 min");
  assert.equal(formatUptime(2 * 3600), "2 h");
  assert.equal(formatUptime(5 * 86400), "5 days");
  assert.equal(formatUptime(-3), "0 s");
});

test("formatWhen says how long ago", () => {
  const now = Date.UTC(2026, 11, 1, 12, 0, 0);
  assert.equal(formatWhen(now - 10_000, now), "just now");
  assert.equal(formatWhen(now - 5 * 60_000, now), "5 min ago");
  assert.equal(formatWhen(now - 3 * 3600_000, now), "3 h ago");
  assert.equal(formatWhen(now - 30 * 3600_000, now), "yesterday");
  assert.equal(formatWhen(now - 4 * 86400_000, now), "4 days ago");
  assert.equal(formatWhen(Date.UTC(2026, 0, 2), now), "2026-01-02");
});

test("claudeStatus: ready only with the CLI and the hooks; a clear not yet otherwise", () => {
  const base = { settings_path: "/home/a/.claude/settings.json" };
  assert.equal(claudeStatus({ ...base, cli: true, hooks: true }).state, "ready");
  const partial = claudeStatus({ ...base, cli: true, hooks: false });
  assert.equal(partial.state, "partial");
  assert.match(partial.text, /^Not yet/);
  assert.doesNotMatch(partial.text, /lets setup claude/);
  assert.equal(partial.detail, "lets setup claude");
  const missing = claudeStatus({ ...base, cli: false, hooks: true });
  assert.equal(missing.state, "missing");
  assert.match(missing.text, /^Not yet: Claude Code/);
});

test("claudeStatus and phonesStatus never send the person to a tray menu (#21: a desktop may have none)", () => {
  const base = { settings_path: "/home/a/.claude/settings.json" };
  for (const canSetUp of [true, false]) {
    for (const c of [
      { ...base, cli: true, hooks: false },
      { ...base, cli: false, hooks: false },
    ]) {
      const { text, detail } = claudeStatus(c, canSetUp);
      assert.doesNotMatch(text, /tray/i);
      // #26: the command stays behind "Details", out of the plain words.
      assert.doesNotMatch(text, /`|lets setup/);
      assert.match(text, canSetUp ? /press “Set up Claude”/ : /run the command under “Details” in a terminal/);
      assert.equal(detail, canSetUp ? "" : "lets setup claude");
    }
  }
  for (const canPair of [true, false]) {
    for (const [available, paired] of [
      [false, 0],
      [true, 0],
    ] as const) {
      const { text, detail } = phonesStatus(available, paired, canPair);
      assert.doesNotMatch(text, /tray/i);
      assert.doesNotMatch(text, /`|lets pad/);
      assert.match(text, canPair ? /Press “Pair a phone”/ : /run the command under “Details” in a terminal/);
      assert.equal(detail, canPair ? "" : "lets pad pair");
    }
  }
  assert.deepEqual(phonesStatus(true, 2, true), { text: "", detail: "" });
});

test("initial takes the first letter, whole characters", () => {
  assert.equal(initial("sketch pad"), "S");
  assert.equal(initial("  émoji"), "É");
  assert.equal(initial("🎨 Paint"), "🎨");
  assert.equal(initial(""), "?");
});

test("chatMeta says when, where, how long and whether it is open", () => {
  const now = Date.UTC(2026, 11, 1, 12, 0, 0);
  assert.equal(
    chatMeta({ dir: "/home/ada/Lets", updated: "2026-12-01T11:55:00Z", turns: 4 }, now),
    "last used 5 min ago · folder Lets · 4 messages",
  );
  assert.equal(chatMeta({ dir: "", updated: "2026-11-30T08:00:00Z", turns: 1, window: "w3" }, now), "last used yesterday · 1 message · open now");
  assert.equal(chatMeta({ dir: "/x", updated: "not a date", turns: 0 }, now), "not used yet · folder x · 0 messages");
});

test("claudeStatus offers Install Claude Code when Lets can install it, and warns kindly about an old one", () => {
  const base = { settings_path: "/home/a/.claude/settings.json", tested: "2.1.332" };
  const missing = claudeStatus({ ...base, cli: false, hooks: false, installable: true }, true);
  assert.equal(missing.state, "missing");
  assert.match(missing.text, /Press “Install Claude Code”/);
  assert.doesNotMatch(missing.text, /terminal|npm|sudo/);
  assert.match(claudeStatus({ ...base, cli: false, hooks: false, installable: true, installing: true }).text, /being installed/);
  const old = claudeStatus({ ...base, cli: true, hooks: true, version: "2.0.1", old: true, installable: true });
  assert.equal(old.state, "ready");
  assert.match(old.text, /2\.0\.1 is older than 2\.1\.332/);
  assert.doesNotMatch(claudeStatus({ ...base, cli: true, hooks: true, version: "2.1.332" }).text, /older/);
});

test("folders are named, not shown as full paths (#26)", () => {
  assert.equal(folderName("/home/ada/Letters"), "Letters");
  assert.equal(folderName("/home/ada/Letters/"), "Letters");
  assert.equal(folderName("/"), "/");
  assert.equal(placeName("/home/ada", "/home/ada"), "your home folder");
  assert.equal(placeName("/home/ada/Documents/Taxes 2026", "/home/ada"), "your home folder › Documents › Taxes 2026");
  assert.equal(placeName("/home/adam/x", "/home/ada"), "/home/adam/x");
  assert.equal(placeName("/srv/data", "/home/ada"), "/srv/data");
});

test("codexStatus: ready with Codex and Lets' tools; calm when Codex is not used; what to do otherwise, never a tray", () => {
  const base = { config_path: "/home/a/.codex/config.toml" };
  const ready = codexStatus({ ...base, cli: true, set_up: true }, true);
  assert.equal(ready.state, "ready");
  assert.match(ready.text, /lets codex/);
  const off = codexStatus({ ...base, cli: false, set_up: false }, true);
  assert.equal(off.state, "off");
  assert.match(off.text, /npm install -g @openai\/codex/);
  assert.match(off.text, /press “Set up Codex” below/);
  const partial = codexStatus({ ...base, cli: true, set_up: false }, false);
  assert.equal(partial.state, "partial");
  assert.match(partial.text, /^Not yet/);
  assert.equal(partial.detail, "lets setup codex");
  assert.equal(codexStatus({ ...base, cli: true, set_up: true, stale: true }, true).state, "partial");
  const problem = codexStatus({ ...base, cli: true, set_up: false, problem: "Codex's settings file has a mistake." }, true);
  assert.equal(problem.state, "partial");
  assert.equal(problem.detail, base.config_path);
  for (const canSetUp of [true, false]) {
    for (const c of [
      { cli: false, set_up: false },
      { cli: true, set_up: false },
      { cli: false, set_up: true },
      { cli: true, set_up: true, stale: true },
    ]) {
      assert.doesNotMatch(codexStatus({ ...base, ...c }, canSetUp).text, /tray/i);
    }
  }
});

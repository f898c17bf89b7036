// Run by frontend/pad_text_ts_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanLine } from "./text";
import { parseServerMessage } from "./protocol";

test("labels lose escapes, bells, new lines and bidi controls (#23)", () => {
  assert.equal(cleanLine("evil\x1b[2J\x07\nApprove\u202Eevorppa"), "evil\uFFFD[2J\uFFFD Approveevorppa");
  assert.equal(cleanLine("\u2066x\u2069\u200F"), "x");
  assert.equal(cleanLine("  spaced   out "), "spaced out");
  assert.equal(cleanLine("abcdefghij", 5), "abcd…");
  assert.equal(cleanLine("café ✓ 日本"), "café ✓ 日本");
});

// A surface message as the daemon sends it (three agents).
const SURFACE =
  '{"protocol":1,"type":"surface","visual_protocol":1,"view":{"selected_state":"waiting_for_approval","frame":1,"sessions":[{"slot":0,"state":"running","selected":false,"accent":"cyan","label":"Builder"},{"slot":1,"state":"waiting_for_approval","selected":true,"accent":"magenta","label":"Reviewer"},{"slot":2,"state":"error","selected":false,"accent":"lime","label":"Tests"}],"available_actions":["approve","reject"],"overflow_count":0,"activity_motion":false},"visual_frame":{"state":[["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"]],"selectors":["accent:cyan:unselected","accent:magenta:selected","accent:lime:unselected","off","off","off","off","off"],"statuses":["state:running:summary","state:waiting_for_approval:summary","state:error:summary","off","off","off","off","off"],"actions":{"approve":"action:approve:enabled","reject":"action:reject:enabled","stop":"off","retry":"off"},"overflow":"off"}}';

test("a view's session labels are shown cleaned", () => {
  const msg = JSON.parse(SURFACE);
  msg.view.sessions[0].label = "Build\u001b[2J\ner\u202Eevil";
  const m = parseServerMessage(JSON.stringify(msg));
  assert.ok(m && m.type === "surface", "the surface parses");
  assert.equal(m.view.sessions[0]?.label, "Build\uFFFD[2J erevil");
});

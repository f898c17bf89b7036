// Run by shell/protocol_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { backoff, ChatStream, checkThemeVars, componentView, Delivery, framesOf, uniqueMayEmit } from "./protocol";
import { RESERVED_DOMAINS } from "./envelope";

test("checklist 34: an unknown component type falls back to a note with the raw props", () => {
  const v = componentView("hologram", { beam: 3 });
  assert.equal(v.type, "note");
  assert.equal(v.fallbackFrom, "hologram");
  assert.deepEqual(v.props, { beam: 3 });
  assert.equal(componentView("slider", { min: 0 }).type, "slider");
  assert.equal(componentView(undefined, null).type, "note");
});

test("checklist 35: chat.say chunks 2,1,3(done) read 1,2,3 in one bubble", () => {
  const s = new ChatStream();
  assert.equal(s.add({ text: "world", seq: 2 }), true);
  assert.equal(s.done, false);
  assert.equal(s.add({ text: "Hello ", seq: 1 }), true);
  assert.equal(s.add({ text: "!", seq: 3, done: true }), true);
  assert.equal(s.text(), "Hello world!");
  assert.deepEqual(s.parts(), ["Hello ", "world", "!"]);
  assert.equal(s.done, true);
  assert.equal(s.add({ text: "again", seq: 2 }), false, "duplicates are ignored");
  assert.equal(s.text(), "Hello world!");
});

test("a done chunk before its predecessors is not finished yet", () => {
  const s = new ChatStream();
  s.add({ text: "c", seq: 3, done: true });
  assert.equal(s.done, false);
  s.add({ text: "a", seq: 1 });
  s.add({ text: "b", seq: 2 });
  assert.equal(s.done, true);
});

test("checklist 39: ui.theme refuses url() and keeps the other vars", () => {
  const r = checkThemeVars({ "--lets-bg": "url(x)", "--lets-accent": "#d04a8a", "--lets-gap": "calc(4px + 1rem)" });
  assert.deepEqual(r.applied, { "--lets-accent": "#d04a8a", "--lets-gap": "calc(4px + 1rem)" });
  assert.deepEqual(r.refused.map((x) => x.name), ["--lets-bg"]);
  for (const bad of ["red; color: blue", "expression(alert(1))", "a{b}", "image-set(x)", "\\75rl(x)", 12]) {
    assert.equal(checkThemeVars({ "--lets-x": bad }).refused.length, 1, String(bad));
  }
  assert.equal(checkThemeVars({ color: "red" }).refused[0].reason, "only --lets-* custom properties can be set");
  assert.deepEqual(checkThemeVars(null), { applied: {}, refused: [] });
});

test("delivery dedupes by id, acks duplicates again, and tracks the resume seq", () => {
  const d = new Delivery(3);
  const env = (id: string, seq: number) => ({ lip: 1, id, type: "a.b", data: {}, seq });
  assert.equal(d.accept(env("a", 1)), true);
  assert.equal(d.accept(env("b", 2)), true);
  assert.equal(d.accept(env("a", 1)), false);
  assert.deepEqual(d.takeAcks(), ["a", "b", "a"]);
  assert.deepEqual(d.takeAcks(), []);
  assert.equal(d.lastSeq, 2);
  for (const id of ["c", "d", "e"]) d.accept(env(id, 3));
  assert.equal(d.accept(env("a", 1)), true, "ids beyond the memory bound are forgotten");
});

test("frames are one envelope or a batch; junk is dropped", () => {
  assert.equal(framesOf('{"lip":1,"id":"x","type":"a.b","data":{}}').length, 1);
  assert.equal(framesOf('[{"lip":1,"id":"x","type":"a.b"},{"nope":1},3]').length, 1);
  assert.deepEqual(framesOf("not json"), []);
});

test("the unique may emit its domains and entity.summon, nothing reserved", () => {
  assert.equal(uniqueMayEmit("graph.node.add", ["graph"], RESERVED_DOMAINS), true);
  assert.equal(uniqueMayEmit("entity.summon", ["graph"], RESERVED_DOMAINS), true);
  assert.equal(uniqueMayEmit("chat.message", ["graph"], RESERVED_DOMAINS), false);
  assert.equal(uniqueMayEmit("shell.answer", ["graph"], RESERVED_DOMAINS), false);
  assert.equal(uniqueMayEmit("other.x", ["graph"], RESERVED_DOMAINS), false);
});

test("reconnect backoff grows to 5 s", () => {
  assert.equal(backoff(0, () => 0.5), 250);
  assert.equal(backoff(3, () => 0.5), 2000);
  assert.equal(backoff(50, () => 0.5), 5000);
});

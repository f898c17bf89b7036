// Run by shell/emitrule_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { emitRefusal, parseDeclared } from "./emitrule";

const tally = parseDeclared(
  JSON.stringify({ unique: "tally", events: ["tally.changed", "tally.note"], export: "tally.export", snapshot: "tally.snapshot" }),
);

test("issue #10: an undeclared type is refused with the rule and the declared events", () => {
  assert.ok(tally);
  const why = emitRefusal("tally.explode", tally);
  assert.match(why, /^lip\.emit\("tally\.explode"\): tally\.explode is not an event tally declares/);
  assert.match(why, /LIP 1 §3/);
  assert.match(why, /declared: tally\.changed, tally\.note/);
  assert.match(emitRefusal("other.thing", tally), /not an event tally declares/);
});

test("declared events, the session types and entity.summon are allowed", () => {
  for (const t of ["tally.changed", "tally.note", "tally.export", "tally.snapshot", "entity.summon"]) {
    assert.equal(emitRefusal(t, tally), "", t);
  }
});

test("reserved domains and media.image are refused even when nothing is declared", () => {
  for (const d of [tally, null]) {
    assert.match(emitRefusal("chat.message", d), /"chat" is a reserved domain \(LIP 1 §3\)/);
    assert.match(emitRefusal("lip.ready", d), /"lip" is a reserved domain/);
    assert.match(emitRefusal("media.image", d), /lip\.upload/);
  }
  assert.equal(emitRefusal("tally.explode", null), "", "without declarations the shell decides");
});

test("declarations the host did not fill in, or broken ones, read as unknown", () => {
  assert.equal(parseDeclared("__LETS_DECLARED__"), null);
  assert.equal(parseDeclared("{not json"), null);
  assert.equal(parseDeclared('{"events": []}'), null);
  assert.deepEqual(parseDeclared('{"unique": "u", "events": ["u.a", 3]}'), { unique: "u", events: ["u.a"], export: "", snapshot: "" });
});

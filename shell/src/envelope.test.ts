// Run by shell/envelope_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkEnvelope, domainOf, isReserved, makeEnvelope, splitBatch, ulid, MAX_ENVELOPE_BYTES } from "./envelope";

const good = { lip: 1, id: "ev_1", type: "graph.node.select", data: { ids: ["n3"] } };

test("a well-formed envelope passes and keeps unknown fields", () => {
  const c = checkEnvelope({ ...good, future: 1 });
  assert.equal(c.ok, true);
  if (c.ok) assert.equal(c.envelope.future, 1);
});

test("absent data becomes an empty object", () => {
  const c = checkEnvelope({ lip: 1, id: "x", type: "a.b" });
  assert.ok(c.ok);
  if (c.ok) assert.deepEqual(c.envelope.data, {});
});

test("lip 2 is unsupported_version (checklist 1)", () => {
  const c = checkEnvelope({ ...good, lip: 2 });
  assert.equal(c.ok, false);
  if (!c.ok) assert.equal(c.code, "unsupported_version");
});

test("an uppercase type is bad_envelope (checklist 2)", () => {
  const c = checkEnvelope({ ...good, type: "Graph.Node" });
  assert.equal(c.ok, false);
  if (!c.ok) assert.equal(c.code, "bad_envelope");
});

test("types need a domain and a name", () => {
  for (const type of ["graph", "graph.", ".x", "graph..x", "graph.Node", "1a.b", "a".repeat(95) + ".b"]) {
    assert.equal(checkEnvelope({ ...good, type }).ok, false, type);
  }
});

test("ids, ttl, data and dir are checked", () => {
  assert.equal(checkEnvelope({ ...good, id: "" }).ok, false);
  assert.equal(checkEnvelope({ ...good, id: "a b" }).ok, false);
  assert.equal(checkEnvelope({ ...good, id: "x".repeat(65) }).ok, false);
  assert.equal(checkEnvelope({ ...good, ttl: 0 }).ok, false);
  assert.equal(checkEnvelope({ ...good, ttl: 86_400_001 }).ok, false);
  assert.equal(checkEnvelope({ ...good, ttl: 1.5 }).ok, false);
  assert.equal(checkEnvelope({ ...good, ttl: 30000 }).ok, true);
  assert.equal(checkEnvelope({ ...good, data: [] }).ok, false);
  assert.equal(checkEnvelope({ ...good, dir: "sideways" }).ok, false);
  assert.equal(checkEnvelope([good]).ok, false);
});

test("an envelope over 256 KiB is too_large", () => {
  const c = checkEnvelope({ ...good, data: { text: "x".repeat(MAX_ENVELOPE_BYTES) } });
  assert.equal(c.ok, false);
  if (!c.ok) assert.equal(c.code, "too_large");
});

test("a batch of 3 with the middle invalid accepts 2 and names index 1 (checklist 3)", () => {
  const r = splitBatch([good, { ...good, lip: 2 }, { ...good, id: "ev_3" }]);
  assert.equal(r.accepted.length, 2);
  assert.deepEqual(r.rejected.map((x) => x.index), [1]);
});

test("a batch over 256 envelopes is refused whole", () => {
  const r = splitBatch(Array.from({ length: 257 }, () => good));
  assert.equal(r.accepted.length, 0);
  assert.equal(r.rejected[0].code, "too_large");
});

test("domains and reserved domains", () => {
  assert.equal(domainOf("graph.node.select"), "graph");
  assert.equal(isReserved("entity.say"), true);
  assert.equal(isReserved("graph.node.add"), false);
});

test("ulid is 26 Crockford characters and sorts by time", () => {
  const zero = () => new Uint8Array(10);
  const a = ulid(1_000, zero);
  const b = ulid(2_000, zero);
  assert.match(a, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.ok(a < b);
  assert.equal(ulid(0, zero), "0".repeat(26));
});

test("makeEnvelope builds a valid up-envelope and refuses bad types", () => {
  const env = makeEnvelope("graph.export", { n: 1 }, { now: 1_760_000_000_000, ttl: 5000 });
  assert.equal(env.dir, "up");
  assert.match(env.id, /^ev_[0-9A-Z]{26}$/);
  assert.equal(checkEnvelope(env).ok, true);
  assert.throws(() => makeEnvelope("Nope"), /not a LIP type/);
});

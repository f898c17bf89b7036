// Run by shell/entity_test.go through Node's test runner (issue #11,
// companion): the pure parts of the entity, with time passed in.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  besidePoint, clampToViewport, covers, DEFAULT_PERSONA, easeInOutCubic, followPoint, GestureDetector, Glide, isReaction, KONAMI,
  menuFocus, menuItems, mergeSuggestions, moodLook, MOODS, moveDuration, parsePersona, PROFILE_EVERY_MS,
  ProfileAggregator, QUICK_SUGGESTIONS, REACTIONS, reactionMs, SLEEPY_AFTER_MS, suggestionsOf, type GestureOutcome,
} from "./logic";

test("eight moods, each visibly different from every other", () => {
  assert.equal(MOODS.length, 8);
  const seen = new Set<string>();
  for (const m of MOODS) {
    const look = moodLook(m);
    // Colour, eyes, mouth, sign and motion together are unique per mood,
    // and no two moods share both colour and eyes+mouth.
    seen.add(JSON.stringify(look));
    for (const o of MOODS) {
      if (o === m) continue;
      const other = moodLook(o);
      const differ = [look.body !== other.body, look.eyes !== other.eyes || look.mouth !== other.mouth, look.sign !== other.sign, look.motion !== other.motion].filter(Boolean).length;
      assert.ok(differ >= 3, `${m} and ${o} differ in only ${differ} ways`);
    }
  }
  assert.equal(seen.size, 8);
  assert.deepEqual(moodLook("furious"), moodLook("idle"), "an unknown mood looks idle");
});

test("all eighteen reactions of seed §3.2 are known, with bounded durations", () => {
  assert.equal(REACTIONS.length, 18);
  for (const r of ["dizzy", "whoa", "startled", "gasp", "oops", "wink", "cheer", "blush", "boop", "yawn", "peek", "nod", "shake-no", "wave", "spin", "dance", "disco", "sparkle"]) {
    assert.ok(isReaction(r), r);
  }
  assert.equal(isReaction("explode"), false);
  assert.equal(reactionMs("nod"), 800);
  assert.equal(reactionMs("nod", 1), 300);
  assert.equal(reactionMs("nod", 60000), 5000);
  assert.equal(reactionMs("disco"), 2400);
});

test("entity.move eases over 250–600 ms, distance based, and never jumps", () => {
  assert.equal(moveDuration({ x: 0, y: 0 }, { x: 0, y: 0 }), 250);
  assert.equal(moveDuration({ x: 0, y: 0 }, { x: 5000, y: 0 }), 600);
  const mid = moveDuration({ x: 0, y: 0 }, { x: 300, y: 0 });
  assert.ok(mid > 250 && mid < 600, String(mid));
  assert.ok(moveDuration({ x: 0, y: 0 }, { x: 300, y: 0 }, 2) < mid, "a faster persona moves faster");
  assert.equal(easeInOutCubic(0), 0);
  assert.equal(easeInOutCubic(1), 1);
  assert.equal(easeInOutCubic(0.5), 0.5);
  const g = new Glide({ x: 0, y: 0 }, { x: 400, y: 200 }, 1000);
  let prev = g.at(1000);
  assert.deepEqual(prev, { x: 0, y: 0 });
  // Sampled every frame, no step is more than a fifth of the way.
  for (let t = 1000; t <= 1000 + g.duration; t += 16) {
    const p = g.at(t);
    assert.ok(Math.hypot(p.x - prev.x, p.y - prev.y) < 0.2 * Math.hypot(400, 200), `jump at ${t}`);
    assert.ok(p.x >= 0 && p.x <= 400 && p.y >= 0 && p.y <= 200);
    prev = p;
  }
  assert.deepEqual(g.at(1000 + g.duration), { x: 400, y: 200 });
  assert.ok(g.done(1000 + g.duration));
});

test("moves are clamped to the viewport, also from far off-screen", () => {
  const box = { w: 64, h: 64 };
  const view = { w: 800, h: 600 };
  assert.deepEqual(clampToViewport({ x: -500, y: 9000 }, box, view), { x: 4, y: 600 - 64 - 4 });
  assert.deepEqual(clampToViewport({ x: 100, y: 100 }, box, view), { x: 100, y: 100 });
  assert.deepEqual(clampToViewport({ x: NaN, y: Infinity }, box, view), { x: 4, y: 4 }, "not a number: a safe corner");
  assert.deepEqual(clampToViewport({ x: 50, y: 50 }, box, { w: 30, h: 30 }), { x: 4, y: 4 }, "a tiny view still gives a point");
});

test("following keeps the persona distance and never covers the cursor", () => {
  const box = { w: 64, h: 64 };
  const view = { w: 1000, h: 800 };
  const cursor = { x: 500, y: 400 };
  const p = followPoint(cursor, { x: 900, y: 400 }, 72, box, view);
  assert.ok(p);
  if (p) {
    const center = { x: p.x + 32, y: p.y + 32 };
    assert.equal(Math.round(Math.hypot(center.x - cursor.x, center.y - cursor.y)), 72 + 32);
    assert.ok(center.x > cursor.x, "it stays on its own side");
    assert.equal(covers(p, box, cursor, 8), false, "the cursor stays uncovered");
  }
  assert.equal(followPoint(cursor, { x: 560, y: 400 }, 72, box, view), null, "close enough: it waits so the human can reach it");
  assert.equal(followPoint({ x: -80, y: -60 }, { x: 900, y: 400 }, 72, box, view), null, "a pointer that left the window is not chased");
  assert.equal(followPoint({ x: 400, y: 900 }, { x: 900, y: 400 }, 72, box, view), null);
  const edge = followPoint({ x: 995, y: 795 }, { x: 10, y: 10 }, 72, box, view);
  assert.ok(edge && edge.x >= 4 && edge.y >= 4 && edge.x <= 1000 - 68 && edge.y <= 800 - 68);
});

test("beside a point: the persona distance on the first diagonal with room", () => {
  const box = { w: 64, h: 64 };
  const view = { w: 1000, h: 497 };
  const dist = (p: { x: number; y: number }, c: { x: number; y: number }) => Math.hypot(p.x + 32 - c.x, p.y + 32 - c.y);
  const middle = { x: 500, y: 200 };
  const below = besidePoint(middle, 120, box, view);
  assert.equal(Math.round(dist(below, middle)), 152, "the distance, counted to its middle");
  assert.ok(below.x + 32 > middle.x && below.y + 32 > middle.y, "below-right when there is room");
  // Near the bottom there is no room below: it goes above, and keeps the distance.
  const low = { x: 302, y: 401 };
  const above = besidePoint(low, 120, box, view);
  assert.equal(Math.round(dist(above, low)), 152);
  assert.ok(above.y + 32 < low.y && above.x + 32 > low.x, "above-right");
  assert.equal(covers(above, box, low, 8), false);
  // In the bottom-right corner: above-left.
  const corner = { x: 980, y: 480 };
  const upLeft = besidePoint(corner, 72, box, view);
  assert.ok(upLeft.x + 32 < corner.x && upLeft.y + 32 < corner.y);
  assert.equal(Math.round(dist(upLeft, corner)), 104);
  // A view too small for any diagonal: clamped inside it.
  const tiny = besidePoint({ x: 50, y: 50 }, 72, box, { w: 120, h: 120 });
  assert.ok(tiny.x >= 4 && tiny.y >= 4 && tiny.x <= 120 - 68 && tiny.y <= 120 - 68);
});

test("entity.persona applies name, speed and distance (numbers or words), clamped", () => {
  assert.deepEqual(parsePersona({ name: "Juniper", traits: { speed: 1.5, distance: 120 } }), { name: "Juniper", speed: 1.5, distance: 120 });
  assert.deepEqual(parsePersona({ name: "Z", traits: { speed: "slow", distance: "far" } }), { name: "Z", speed: 0.6, distance: 140 });
  assert.deepEqual(parsePersona({ name: "", traits: { speed: 99, distance: 1 } }), { name: DEFAULT_PERSONA.name, speed: 2, distance: 24 });
  assert.deepEqual(parsePersona({ name: "Q", traits: {} }, { name: "P", speed: 0.7, distance: 50 }), { name: "Q", speed: 0.7, distance: 50 });
});

test("entity.suggest replaces or merges the menu; quick suggestions fill in", () => {
  const a = suggestionsOf([{ id: "a", label: "A" }, { id: "", label: "no id" }, { id: "b", label: "B", hint: "bee" }, "junk"]);
  assert.deepEqual(a, [{ id: "a", label: "A" }, { id: "b", label: "B", hint: "bee" }]);
  const merged = mergeSuggestions(a, [{ id: "b", label: "B2" }, { id: "c", label: "C" }], false);
  assert.deepEqual(merged.map((s) => `${s.id}:${s.label}`), ["a:A", "b:B2", "c:C"]);
  assert.deepEqual(mergeSuggestions(merged, [{ id: "z", label: "Z" }], true), [{ id: "z", label: "Z" }]);
  const many = Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, label: `S${i}` }));
  assert.equal(mergeSuggestions([], many, false).length, 12);
  const menu = menuItems([{ id: "x", label: "X" }, { ...QUICK_SUGGESTIONS[0], label: "Claude's wording" }]);
  assert.deepEqual(menu.map((s) => s.id), ["x", QUICK_SUGGESTIONS[0].id, ...QUICK_SUGGESTIONS.slice(1).map((q) => q.id)]);
  assert.equal(menuItems([]).length, QUICK_SUGGESTIONS.length, "instant local suggestions before Claude answers");
});

test("entity.profile aggregates counts only, every 60 s at most", () => {
  const view = { w: 400, h: 400 };
  const agg = new ProfileAggregator(0);
  assert.equal(agg.due(PROFILE_EVERY_MS), false, "nothing happened: nothing to send");
  // 10 moves, 100 ms apart, 50 px each, in the top-left cell.
  for (let i = 0; i <= 10; i++) agg.move(10 + (i % 2) * 50, 10, 1000 + i * 100, view);
  agg.click(3000);
  agg.click(4000);
  for (let i = 0; i < 6; i++) agg.key(5000 + i);
  // Then quiet for 20 s, then one move bottom-right.
  agg.move(390, 390, 25_000, view);
  assert.equal(agg.due(30_000), false);
  assert.equal(agg.due(60_000), true);
  const p = agg.take(60_000);
  assert.equal(p.pace, 500);
  assert.equal(p.dwell, 100);
  assert.equal(p.clickRate, 2);
  assert.equal(p.keys, 6);
  assert.equal(p.sessionMs, 60_000);
  assert.ok(p.idleMs >= 19_000 + 35_000 - 1, `idle ${p.idleMs}`);
  assert.deepEqual(p.regions[0], { row: 0, col: 0, ms: 1000 + 5000 });
  assert.ok(p.regions.length <= 5);
  assert.deepEqual(Object.keys(p).sort(), ["clickRate", "dwell", "idleMs", "keys", "pace", "regions", "sessionMs"]);
  assert.equal(JSON.stringify(p).includes("390"), false, "no raw positions");
  assert.equal(agg.due(61_000), false, "the period restarts after a send");
});

function outcomes(list: GestureOutcome[]): string[] {
  return list.map((o) => `${o.kind}:${o.kind === "mood" ? o.mood : o.name}`);
}

test("self-played reactions: fast circles make it dizzy", () => {
  const g = new GestureDetector(0);
  const got: string[] = [];
  for (let i = 0; i < 60; i++) {
    const a = (i / 15) * 2 * Math.PI; // four turns in 60 samples
    got.push(...outcomes(g.pointer({ x: 300 + 80 * Math.cos(a), y: 300 + 80 * Math.sin(a), t: i * 16 }, { x: 900, y: 900, r: 32 }, false)));
  }
  assert.deepEqual(got, ["react:dizzy"]);
  const slow = new GestureDetector(0);
  const calm: string[] = [];
  for (let i = 0; i < 60; i++) calm.push(...outcomes(slow.pointer({ x: 300 + i * 2, y: 300, t: i * 16 }, { x: 900, y: 900, r: 32 }, false)));
  assert.deepEqual(calm, [], "a straight calm line does nothing");
});

test("self-played reactions: a fling toward it startles, hover peeks, double-click boops, long idle yawns", () => {
  const g = new GestureDetector(0);
  const me = { x: 500, y: 300, r: 32 };
  const got: string[] = [];
  for (let i = 0; i < 6; i++) got.push(...outcomes(g.pointer({ x: 200 + i * 50, y: 300, t: 1000 + i * 16 }, me, false)));
  assert.deepEqual(got, ["react:startled"]);
  assert.deepEqual(outcomes(g.hover(2000)), ["react:peek"]);
  assert.deepEqual(outcomes(g.hover(2500)), [], "not again right away");
  assert.deepEqual(outcomes(g.doubleClick(3000)), ["react:boop"]);
  assert.deepEqual(outcomes(g.tick(3000 + SLEEPY_AFTER_MS - 1)), []);
  assert.deepEqual(outcomes(g.tick(3000 + SLEEPY_AFTER_MS)), ["react:yawn", "mood:sleepy"]);
  assert.deepEqual(outcomes(g.tick(3000 + SLEEPY_AFTER_MS * 2)), [], "once per nap");
  assert.deepEqual(outcomes(g.hover(200_000)), ["mood:idle", "react:peek"], "it wakes up");
});

test("secret moves: spin, disco, wave, konami, each reported once per window", () => {
  const g = new GestureDetector(0);
  const got: string[] = [];
  // spin: drag the companion in a full circle (twice: reported once).
  g.dragStart({ x: 400, y: 300, t: 0 });
  for (let i = 1; i <= 80; i++) {
    const a = (i / 36) * 2 * Math.PI;
    got.push(...outcomes(g.dragMove({ x: 400 + 60 * Math.cos(a), y: 300 + 60 * Math.sin(a), t: i * 20 })));
  }
  g.dragEnd();
  // disco: type "party" with the companion focused (not counted unfocused).
  for (const k of "party") got.push(...outcomes(g.key(k, 5000, false)));
  for (const k of "xparty") got.push(...outcomes(g.key(k, 5000, true)));
  // wave: shake left-right over it three times.
  const me = { x: 400, y: 300, r: 32 };
  const xs = [400, 420, 400, 380, 400, 420, 400, 380, 400, 420, 400, 380, 400];
  xs.forEach((x, i) => got.push(...outcomes(g.pointer({ x, y: 300, t: 10_000 + i * 40 }, me, true))));
  // konami, twice.
  for (const k of [...KONAMI, ...KONAMI]) got.push(...outcomes(g.key(k, 20_000, false)));
  assert.deepEqual(got, ["secret:spin", "secret:disco", "secret:wave", "secret:konami"]);
  assert.deepEqual(g.secrets().sort(), ["disco", "konami", "spin", "wave"]);
});

test("the menu moves focus with arrows, Home and End", () => {
  assert.equal(menuFocus("ArrowDown", 2, 3), 0);
  assert.equal(menuFocus("ArrowUp", 0, 3), 2);
  assert.equal(menuFocus("Home", 2, 3), 0);
  assert.equal(menuFocus("End", 0, 3), 2);
  assert.equal(menuFocus("x", 0, 3), -1);
  assert.equal(menuFocus("ArrowDown", 0, 0), -1);
});

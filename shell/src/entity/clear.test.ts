// Run by shell/entity_test.go through Node's test runner (issue #21): the
// companion's resting place keeps clear of every control.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clearSpot, coveredArea, near, overlapArea, rectsOf, type Rect } from "./clear";

const BOX = { w: 64, h: 64 };
const VIEW = { w: 800, h: 600 };

test("overlap of rectangles", () => {
  assert.equal(overlapArea({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 }), 25);
  assert.equal(overlapArea({ x: 0, y: 0, w: 10, h: 10 }, { x: 10, y: 0, w: 10, h: 10 }), 0, "touching edges share nothing");
  assert.equal(coveredArea({ x: 0, y: 0 }, BOX, [{ x: 60, y: 60, w: 10, h: 10 }]), 16);
});

test("a clear wanted place is kept as it is", () => {
  const controls: Rect[] = [{ x: 0, y: 0, w: 100, h: 40 }];
  assert.deepEqual(clearSpot({ x: 300, y: 300 }, BOX, VIEW, controls), { x: 300, y: 300 });
});

test("a place on a control moves to the nearest clear one, gap included", () => {
  const note: Rect = { x: 200, y: 200, w: 300, h: 80 };
  const p = clearSpot({ x: 300, y: 210 }, BOX, VIEW, [note]);
  assert.equal(coveredArea(p, BOX, [note], 6), 0, `at ${JSON.stringify(p)} it still covers the note`);
  // The nearest clear places are just above or below the note.
  assert.ok(Math.hypot(p.x - 300, p.y - 210) <= 90, `moved too far: ${JSON.stringify(p)}`);
});

test("controls that fill the view: the least covered place, never the avoided one", () => {
  // A wall of buttons with 10 px gutters: nothing is clear.
  const wall: Rect[] = [];
  for (let y = 0; y < VIEW.h; y += 50) for (let x = 0; x < VIEW.w; x += 110) wall.push({ x, y, w: 100, h: 40 });
  const pointer: Rect = { x: 360, y: 260, w: 80, h: 80 };
  const p = clearSpot({ x: 368, y: 268 }, BOX, VIEW, wall, [pointer]);
  assert.equal(coveredArea(p, BOX, [pointer], 6), 0, "it steps away from the pointer");
  const here = coveredArea({ x: 368, y: 268 }, BOX, wall, 6);
  assert.ok(coveredArea(p, BOX, wall, 6) <= here, "and covers no more than before");
});

test("the place stays in the view", () => {
  const p = clearSpot({ x: 5000, y: -40 }, BOX, VIEW, [{ x: 700, y: 0, w: 100, h: 100 }]);
  assert.ok(p.x >= 4 && p.x + 64 <= 800 - 4 + 0.5 && p.y >= 4 && p.y + 64 <= 600);
  assert.equal(coveredArea(p, BOX, [{ x: 700, y: 0, w: 100, h: 100 }], 6), 0);
});

test("near and the SDK's rectangles", () => {
  assert.ok(near({ x: 0, y: 0, w: 10, h: 10 }, { x: 20, y: 5 }, 10));
  assert.ok(!near({ x: 0, y: 0, w: 10, h: 10 }, { x: 21, y: 5 }, 10));
  assert.deepEqual(rectsOf([[1, 2, 3, 4], [1, 2, 0, 4], "x", [1, 2, 3], [NaN, 1, 1, 1], [5, 6, 7, 8]]), [
    { x: 1, y: 2, w: 3, h: 4 },
    { x: 5, y: 6, w: 7, h: 8 },
  ]);
  assert.equal(rectsOf(Array.from({ length: 500 }, () => [0, 0, 1, 1])).length, 300);
});

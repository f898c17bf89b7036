// Run by uniques/graph_drag_ts_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NodeDrag, PanDrag, followMove, followPan } from "./drag";

function nodeDrag(): NodeDrag {
  return {
    start: { x: 10, y: 20 },
    origin: new Map([
      ["n1", { x: 0, y: 0 }],
      ["n2", { x: 100, y: -50 }],
    ]),
    moved: false,
  };
}

test("a release with no moves before it puts the nodes where the pointer let go", () => {
  const d = nodeDrag();
  const at = followMove(d, { x: 130, y: 50 }, 1);
  assert.ok(d.moved);
  assert.deepEqual(at, new Map([["n1", { x: 120, y: 30 }], ["n2", { x: 220, y: -20 }]]));
});

test("the nodes follow the last point, whatever moves came before", () => {
  const d = nodeDrag();
  followMove(d, { x: 25, y: 24 }, 1); // the first move of eight
  followMove(d, { x: 40, y: 28 }, 1); // the second; the rest were merged away
  const at = followMove(d, { x: 130, y: 50 }, 1); // the release
  assert.deepEqual(at?.get("n1"), { x: 120, y: 30 });
  // Back where it started: the nodes too.
  assert.deepEqual(followMove(d, { x: 10, y: 20 }, 1)?.get("n2"), { x: 100, y: -50 });
});

test("within the slop a press is a click; once moved, small steps count", () => {
  const d = nodeDrag();
  assert.equal(followMove(d, { x: 12, y: 21 }, 1), null);
  assert.equal(d.moved, false);
  // Zoomed in 4×, 1 graph unit is 4 screen pixels: past the slop.
  assert.deepEqual(followMove(d, { x: 11, y: 20 }, 4)?.get("n1"), { x: 1, y: 0 });
  assert.ok(d.moved);
  assert.deepEqual(followMove(d, { x: 11, y: 21 }, 1)?.get("n1"), { x: 1, y: 1 });
});

test("a pan keeps the pressed point under the pointer, release included", () => {
  const d: PanDrag = { startX: 500, startY: 300, view: { x: -400, y: -200, zoom: 2 }, moved: false };
  assert.deepEqual(followPan(d, 501, 301), { x: -400.5, y: -200.5, zoom: 2 });
  assert.equal(d.moved, false);
  assert.deepEqual(followPan(d, 400, 250), { x: -350, y: -175, zoom: 2 });
  assert.ok(d.moved);
});

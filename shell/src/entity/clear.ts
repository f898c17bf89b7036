// Where the companion may rest (issue #21, "never in the way"): a place
// whose box covers none of the window's controls, nearest to where it
// means to be. Pure geometry, no DOM: companion.ts passes in the controls'
// rectangles (the shell's own and the ones the unique's SDK reports).

import { clampToViewport, type Point, type Size } from "./logic";

/** A rectangle in the shell page's viewport coordinates. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The area two rectangles share (0 when they do not meet). */
export function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The companion's box at topLeft, grown by gap on every side. */
export function boxAt(topLeft: Point, box: Size, gap = 0): Rect {
  return { x: topLeft.x - gap, y: topLeft.y - gap, w: box.w + 2 * gap, h: box.h + 2 * gap };
}

/** How much of the rectangles the box at topLeft (grown by gap) covers. */
export function coveredArea(topLeft: Point, box: Size, rects: readonly Rect[], gap = 0): number {
  const b = boxAt(topLeft, box, gap);
  let sum = 0;
  for (const r of rects) sum += overlapArea(b, r);
  return sum;
}

/** Room kept between the companion and a control. */
export const CLEAR_GAP = 6;
/** The step of the places tried when the wanted one is not clear. */
const STEP = 8;
/** Overlaps smaller than this many px² count the same (no chasing pixels). */
const AREA_BUCKET = 64;

/**
 * The top-left for the companion nearest to want where its box (grown by
 * gap) covers no control, inside the view. Places in avoid (the pointer,
 * a control that has the focus) count far more than other controls: when
 * nothing is clear, it covers the least of them, and never an avoided one
 * if it can help it. Returns want itself (clamped) when that is clear.
 */
export function clearSpot(want: Point, box: Size, view: Size, controls: readonly Rect[], avoid: readonly Rect[] = [], gap = CLEAR_GAP): Point {
  const start = clampToViewport(want, box, view);
  const cost = (p: Point): [number, number] => [
    Math.ceil(coveredArea(p, box, avoid, gap) / AREA_BUCKET),
    Math.ceil(coveredArea(p, box, controls, gap) / AREA_BUCKET),
  ];
  let best = start;
  let [bestAvoid, bestCover] = cost(start);
  if (bestAvoid === 0 && bestCover === 0) return start;
  let bestDist = 0;
  const margin = 4;
  const maxX = Math.max(margin, view.w - box.w - margin);
  const maxY = Math.max(margin, view.h - box.h - margin);
  const xs = steps(margin, maxX);
  const ys = steps(margin, maxY);
  for (const y of ys) {
    for (const x of xs) {
      const p = { x, y };
      const d = Math.hypot(x - start.x, y - start.y);
      const [a, c] = cost(p);
      if (a < bestAvoid || (a === bestAvoid && (c < bestCover || (c === bestCover && d < bestDist)))) {
        best = p;
        bestAvoid = a;
        bestCover = c;
        bestDist = d;
      }
    }
  }
  return best;
}

function steps(from: number, to: number): number[] {
  const out: number[] = [];
  for (let v = from; v < to; v += STEP) out.push(v);
  out.push(to);
  return out;
}

/** True when point p lies within pad of the rectangle. */
export function near(r: Rect, p: Point, pad: number): boolean {
  return p.x >= r.x - pad && p.x <= r.x + r.w + pad && p.y >= r.y - pad && p.y <= r.y + r.h + pad;
}

/**
 * Reads the rectangles a unique's SDK reported ([x, y, w, h] in the
 * frame), keeping at most max well-formed ones with a size.
 */
export function rectsOf(raw: unknown, max = 300): Rect[] {
  if (!Array.isArray(raw)) return [];
  const out: Rect[] = [];
  for (const r of raw) {
    if (out.length >= max) break;
    if (!Array.isArray(r) || r.length !== 4) continue;
    const [x, y, w, h] = r.map(Number);
    if (![x, y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) continue;
    out.push({ x, y, w, h });
  }
  return out;
}

// Pointer drags on the board, with no DOM: where dragged nodes and the
// panned view stand for a pointer position. main.ts feeds it every
// pointermove and, last, the pointerup.
//
// Every position is computed from the press and the pointer's current
// point only, never by adding up the moves in between. So when a loaded
// browser merges or drops pointermove events, nothing stops short: the
// release point alone puts the nodes (or the view) where the pointer let go.

import { Point, Viewport } from "./model";

/** How far, in screen pixels, a press on a node must travel to become a move (less is a click). */
export const MOVE_SLOP = 3;

/** How far, in screen pixels, a press on the board must travel to become a pan (less is a click). */
export const PAN_SLOP = 3;

/** A drag of the selected nodes. */
export interface NodeDrag {
  start: Point; // the press, graph coordinates
  origin: Map<string, Point>; // each dragged node where it stood at the press
  moved: boolean; // the pointer has left the slop: this is a move, not a click
}

/**
 * Follows the pointer at p (graph coordinates, at zoom): returns where each
 * dragged node now stands, its origin plus the pointer's travel since the
 * press, and marks the drag as moved. While an unmoved drag is still within
 * MOVE_SLOP it returns null (a click, the nodes stay).
 */
export function followMove(d: NodeDrag, p: Point, zoom: number): Map<string, Point> | null {
  const dx = p.x - d.start.x;
  const dy = p.y - d.start.y;
  if (!d.moved && Math.hypot(dx, dy) * zoom < MOVE_SLOP) return null;
  d.moved = true;
  const at = new Map<string, Point>();
  for (const [id, o] of d.origin) at.set(id, { x: o.x + dx, y: o.y + dy });
  return at;
}

/** A pan of the board by dragging it. */
export interface PanDrag {
  startX: number; // the press, screen pixels
  startY: number;
  view: Viewport; // the view at the press
  moved: boolean;
}

/**
 * Follows the pointer at (clientX, clientY): returns the view that keeps the
 * graph point under the press under the pointer, and marks the pan as moved
 * once it left PAN_SLOP.
 */
export function followPan(d: PanDrag, clientX: number, clientY: number): Viewport {
  const dx = clientX - d.startX;
  const dy = clientY - d.startY;
  if (Math.hypot(dx, dy) > PAN_SLOP) d.moved = true;
  return { ...d.view, x: d.view.x - dx / d.view.zoom, y: d.view.y - dy / d.view.zoom };
}

import type { Directive } from 'vue';

/**
 * Where pulses may be drawn. A pulse dot is an SVG circle moved only by its `animateMotion`:
 * without a usable path it stays at the flow's origin (the pane's top-left corner), outside any
 * node. So a pulse is drawn only between boxes the browser has measured and along a path whose
 * numbers are all finite. Pure.
 */

/** A node's box in flow coordinates. */
export interface PulseBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** True for a box with a finite position and a size the browser measured (not zero). */
export function measured(box: PulseBox | null | undefined): box is PulseBox {
  return (
    !!box &&
    Number.isFinite(box.x) &&
    Number.isFinite(box.y) &&
    Number.isFinite(box.width) &&
    Number.isFinite(box.height) &&
    box.width > 0 &&
    box.height > 0
  );
}

/** True when every number in an SVG path is finite (a path built from unknown sizes is not). */
export function drawablePath(path: string): boolean {
  if (!/^\s*M/.test(path) || /NaN|Infinity/.test(path)) return false;
  return (path.match(/-?\d*\.?\d+(?:e[-+]?\d+)?/gi) ?? []).length >= 4;
}

/**
 * Starts an SVG animation when its element is inserted. An animation begins at its SVG's time
 * zero: inserted into an edge's SVG that has been on screen longer than the animation lasts, it
 * would be over before it was drawn (a pulse that never moves or shows).
 */
export const vBeginOnMount: Directive<SVGAnimationElement> = {
  mounted(element) {
    if (typeof element.beginElement === 'function') element.beginElement();
  },
};

/**
 * Where the graph may draw: the pane minus the toolbar strip at the top, the legend at the
 * bottom and, when shown, the minimap in the bottom-right corner. The minimap's room is taken
 * from the right or from the bottom, whichever leaves the graph bigger. Pure.
 */

export interface PaneSize {
  width: number;
  height: number;
}

export interface Padding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** Height of the toolbar strip (buttons and zoom controls) and of the legend line. */
export const TOOLBAR_HEIGHT = 36;
export const LEGEND_HEIGHT = 22;
/** Space kept between the graph and the pane's edges or an overlay. */
export const MARGIN = 10;
/** The minimap's distance from the pane's bottom-right corner (its panel margin). */
export const MINIMAP_INSET = 12;

/** The minimap's size for a pane, or null when the pane is too small to spare room for it. */
export function minimapSize(pane: PaneSize): PaneSize | null {
  if (pane.width < 640 || pane.height < 460) return null;
  const width = Math.round(Math.min(200, Math.max(140, pane.width * 0.17)));
  return { width, height: Math.round(width * 0.68) };
}

function zoomFor(pane: PaneSize, padding: Padding, content: PaneSize): number {
  const width = pane.width - padding.left - padding.right;
  const height = pane.height - padding.top - padding.bottom;
  if (width <= 0 || height <= 0 || content.width <= 0 || content.height <= 0) return 0;
  return Math.min(width / content.width, height / content.height);
}

/** The padding for Vue Flow's fitView that keeps every node clear of the overlays. */
export function fitPadding(pane: PaneSize, content: PaneSize, minimap: PaneSize | null): Padding {
  const base: Padding = {
    top: TOOLBAR_HEIGHT + MARGIN,
    right: MARGIN,
    bottom: LEGEND_HEIGHT + MARGIN,
    left: MARGIN,
  };
  if (!minimap) return base;
  // The minimap panel sits MINIMAP_INSET from the pane's corner, with a border.
  const beside: Padding = { ...base, right: minimap.width + MINIMAP_INSET + MARGIN + 4 };
  const above: Padding = {
    ...base,
    bottom: Math.max(base.bottom, minimap.height + MINIMAP_INSET + MARGIN + 4),
  };
  return zoomFor(pane, beside, content) >= zoomFor(pane, above, content) ? beside : above;
}

/** A box in flow coordinates, and the view's pan and zoom that map it to the pane. */
export interface FlowBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface ViewTransform {
  x: number;
  y: number;
  zoom: number;
}

/**
 * Whether every box shows whole in the pane, clear of the overlays `padding` keeps free: then a
 * node that appeared needs no refit, which would move every card under the reader. A box not
 * measured yet (no size) counts as not shown. Pure.
 */
export function allShown(
  boxes: readonly FlowBox[],
  view: ViewTransform,
  pane: PaneSize,
  padding: Padding,
): boolean {
  return boxes.every((box) => {
    if (box.width <= 0 || box.height <= 0) return false;
    const left = box.x * view.zoom + view.x;
    const top = box.y * view.zoom + view.y;
    return (
      left >= padding.left - 1 &&
      top >= padding.top - 1 &&
      left + box.width * view.zoom <= pane.width - padding.right + 1 &&
      top + box.height * view.zoom <= pane.height - padding.bottom + 1
    );
  });
}

/** Whether the pane changed by under a tenth in each direction since `before`. Pure. */
export function nearlySameSize(before: PaneSize, now: PaneSize): boolean {
  const near = (a: number, b: number) => a > 0 && Math.abs(b - a) < a * 0.1;
  return near(before.width, now.width) && near(before.height, now.height);
}

import type { Compare, DiffSegment } from '@shared/contract';

/** A common prefix at least this long is drawn as one row until the user opens it. */
export const COLLAPSE_PREFIX_FROM = 4;

/** One row of the aligned transcript. */
export type CompareRow =
  /** The common prefix, folded into one row. */
  | { kind: 'prefix'; count: number }
  /** The point of divergence, drawn just before the first pair that differs. */
  | { kind: 'diverge'; position: number }
  /** Message `position` of both sessions side by side. */
  | { kind: 'pair'; position: number };

export type CompareShape = Pick<Compare, 'commonPrefix' | 'divergeAt' | 'totalPairs'>;

/**
 * The rows of an aligned transcript, computed by arithmetic from the comparison's shape, so two
 * 100k-message sessions cost nothing until rows are drawn.
 */
export interface CompareRows {
  readonly length: number;
  at(index: number): CompareRow;
  /** The row showing pair `position` (the prefix row when it is folded into it). */
  indexOfPosition(position: number): number;
  /** The row of the divergence marker; -1 when the sessions are the same. */
  readonly divergeIndex: number;
  readonly collapsed: boolean;
}

export function compareRows(shape: CompareShape, prefixOpen: boolean): CompareRows {
  const total = shape.totalPairs;
  const prefix = Math.min(shape.commonPrefix, total);
  const collapsed = !prefixOpen && prefix >= COLLAPSE_PREFIX_FROM;
  const base = collapsed ? 1 : 0;
  const firstPosition = collapsed ? prefix + 1 : 1;
  const diverge = shape.divergeAt;
  /** Index, among the rows after the prefix row, of the marker; -1 without one. */
  const marker =
    diverge !== null && diverge >= firstPosition && diverge <= total ? diverge - firstPosition : -1;
  const length = base + Math.max(0, total - firstPosition + 1) + (marker >= 0 ? 1 : 0);

  function at(index: number): CompareRow {
    if (index < base) return { kind: 'prefix', count: prefix };
    const j = index - base;
    if (marker >= 0 && j === marker) return { kind: 'diverge', position: diverge as number };
    return { kind: 'pair', position: firstPosition + j - (marker >= 0 && j > marker ? 1 : 0) };
  }

  function indexOfPosition(position: number): number {
    if (position < firstPosition) return 0;
    const j = position - firstPosition;
    return base + j + (marker >= 0 && j >= marker ? 1 : 0);
  }

  return {
    length,
    at,
    indexOfPosition,
    divergeIndex: marker >= 0 ? base + marker : -1,
    collapsed,
  };
}

/** The text one side shows of a diff: the common runs and its own, each marked. */
export function sideSegments(
  segments: readonly DiffSegment[],
  side: 'a' | 'b',
): Array<{ text: string; changed: boolean }> {
  return segments
    .filter((segment) => segment.side === 'both' || segment.side === side)
    .map((segment) => ({ text: segment.text, changed: segment.side !== 'both' }));
}

/** The page (of `size` pairs) holding pair `position`. */
export function pageOf(position: number, size: number): number {
  return Math.floor((position - 1) / size);
}

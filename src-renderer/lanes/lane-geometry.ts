import type { LaneRows } from './lane-rows';

/** Height of a row with no time before it: the label line and the arrow under it. */
export const ROW_BASE = 36;
/** The arrow's distance from the bottom of its row (the label sits above it). */
export const ARROW_INSET = 12;
/** The most a pause before a row adds to its height. */
export const MAX_GAP_PX = 56;
/** Width of the time gutter on the left. */
export const GUTTER = 56;
/** Narrowest and widest lane. */
export const MIN_LANE = 92;
export const MAX_LANE = 240;

/**
 * Extra height for a pause of `ms` before a row: logarithmic, so a 12 s wait stands out from a
 * 0.2 s one without a long session turning into empty space. Zero below 150 ms.
 */
export function gapHeight(ms: number): number {
  if (!(ms > 150)) return 0;
  return Math.min(MAX_GAP_PX, Math.round(9 * Math.log2(ms / 150)));
}

/** Row `index`'s height: the base plus the pause since the row before it. */
export function rowHeight(rows: LaneRows, index: number): number {
  const t = rows.times[index] ?? 0;
  const before = index > 0 ? (rows.times[index - 1] ?? 0) : 0;
  return ROW_BASE + gapHeight(t - before);
}

/** Where each row starts (running sum of heights), extended as rows are added. */
export class RowOffsets {
  private starts: number[] = [0];

  constructor(private readonly rows: LaneRows) {}

  /** Offsets for every row the rows hold now. */
  update(): void {
    const starts = this.starts;
    for (let index = starts.length - 1; index < this.rows.size; index++)
      starts.push((starts[index] as number) + rowHeight(this.rows, index));
  }

  start(index: number): number {
    return this.starts[Math.max(0, Math.min(index, this.starts.length - 1))] as number;
  }

  /**
   * The row that `y` falls in among the first `count` rows (binary search): 0 above the first,
   * `count - 1` below the last. -1 when there are no rows.
   */
  indexAt(y: number, count: number): number {
    let low = 0;
    let high = Math.min(count, this.starts.length - 1);
    if (high <= 0) return -1;
    // The last row whose start is at or above y.
    while (high - low > 1) {
      const mid = (low + high) >>> 1;
      if ((this.starts[mid] as number) <= y) low = mid;
      else high = mid;
    }
    return low;
  }

  /** The y of row `index`'s arrow: near its bottom, below its label and the pause above it. */
  arrowY(index: number): number {
    return this.start(index + 1) - ARROW_INSET;
  }

  /**
   * The y of a moment between rows: an event at `seq` and `t` sits between the arrows of the rows
   * around it, placed by time (by seq when the two rows share a time). After the last of the
   * `visible` rows it sits in the tail below them, which ends at the playhead (`tail`).
   */
  yOf(seq: number, t: number, visible: number, tail: Tail): number {
    const rows = this.rows;
    const next = Math.min(rows.countAt(seq), visible);
    const previous = next - 1;
    const fromY = previous >= 0 ? this.arrowY(previous) : 0;
    const fromT = previous >= 0 ? (rows.times[previous] as number) : 0;
    const fromSeq = previous >= 0 ? (rows.seqs[previous] as number) : 0;
    const toY = next < visible ? this.arrowY(next) : this.start(visible) + tail.height;
    const toT = next < visible ? (rows.times[next] as number) : tail.t;
    const toSeq = next < visible ? (rows.seqs[next] as number) : tail.seq;
    const share =
      toT > fromT
        ? clamp01((t - fromT) / (toT - fromT))
        : clamp01((seq - fromSeq) / Math.max(1, toSeq - fromSeq));
    return fromY + share * (toY - fromY);
  }
}

/** The space below the last row, down to the playhead. */
export interface Tail {
  seq: number;
  t: number;
  height: number;
}

/** The tail below the last visible row: a pause drawn like one before a row, plus a margin. */
export function tailOf(rows: LaneRows, visible: number, seq: number, t: number): Tail {
  const lastT = visible > 0 ? (rows.times[visible - 1] as number) : 0;
  return { seq, t, height: 14 + gapHeight(t - lastT) };
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
}

/**
 * Lane width for `count` lanes in `width` pixels (the gutter left out), within the bounds, and
 * never narrower than `widestName` (the pixels the longest lane name needs), so no name is cut:
 * the lens scrolls sideways instead.
 */
export function laneWidth(count: number, width: number, widestName = 0): number {
  if (count <= 0) return MAX_LANE;
  const fitted = Math.min(MAX_LANE, Math.floor((width - GUTTER) / count));
  return Math.ceil(Math.max(MIN_LANE, Math.min(MAX_LANE, widestName), fitted));
}

import { formatDuration } from '../ui/format';
import type { BusyKind, BusySpan } from './activity';
import type { Tail } from './lane-geometry';
import type { LanesModel } from './lanes-model';
import type { LaneColumn } from './row-drawing';

/** One busy bar as drawn: on its agent's lane, from its start to its end (or the playhead). */
export interface BarDrawing {
  key: string;
  agent: string;
  kind: BusyKind;
  x: number;
  top: number;
  height: number;
  color: string;
  title: string;
}

/** A bar is never drawn thinner than this, so a short burst still shows. */
const MIN_BAR = 3;

export const BUSY_LABELS: Record<BusyKind, string> = {
  thinking: 'thinking',
  streaming: 'streaming',
  tool: 'in a tool',
  human: 'waiting for a person',
};

/**
 * The busy bars that cross the drawn rows `first`..`last` of the `visible` rows, cut at the
 * playhead (`playhead`, its time in `tail`): bars after it are not drawn yet, a bar still open
 * there ends at it.
 */
export function visibleBars(
  model: LanesModel,
  columns: Iterable<LaneColumn>,
  window: { first: number; last: number; visible: number },
  playhead: number,
  tail: Tail,
): BarDrawing[] {
  const { rows, offsets, activity } = model;
  const { first, last, visible } = window;
  const fromSeq = first > 0 ? (rows.seqs[first - 1] as number) : 0;
  const toSeq = Math.min(playhead, last + 1 < visible ? (rows.seqs[last + 1] as number) : playhead);
  const bars: BarDrawing[] = [];
  for (const column of columns) {
    const spans = activity.spansOf(column.name);
    for (let index = firstEndingAtOrAfter(spans, fromSeq); index < spans.length; index++) {
      const span = spans[index] as BusySpan;
      if (span.startSeq > toSeq) break;
      const open = span.endSeq > playhead;
      const endSeq = open ? playhead : span.endSeq;
      const endT = open ? tail.t : span.endT;
      const top = offsets.yOf(span.startSeq, span.startT, visible, tail);
      const bottom = offsets.yOf(endSeq, endT, visible, tail);
      const lasted = Math.max(0, endT - span.startT);
      bars.push({
        key: `${column.name}\u0000${span.startSeq}`,
        agent: column.name,
        kind: span.kind,
        x: column.x,
        top,
        height: Math.max(MIN_BAR, bottom - top),
        color: column.color,
        title: `${column.name} ${BUSY_LABELS[span.kind]} ${formatDuration(lasted)}${open ? ' so far' : ''}`,
      });
    }
  }
  return bars;
}

/** Index of the first span that ends at or after `seq` (an open span ends at Infinity). */
function firstEndingAtOrAfter(spans: readonly BusySpan[], seq: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((spans[mid] as BusySpan).endSeq < seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

import { computed, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue';
import type { Message } from '@shared/domain';
import type { LogEntry, MessageLog } from '../session/message-log';
import type { SessionDisplay } from '../session/display';
import { matchesSelection, type GraphSelection } from '../session/selection';
import { ThreadIndex, flatRows, type RowSource } from './thread-index';
import { messageAtPlayhead } from './message-at';
import type { ThreadRow } from './threading';

/** What the transcript rows are cut from: the open session's log and what it shows now. */
export interface TranscriptRowsSource {
  display: Ref<SessionDisplay | null>;
  /** The log now; reactive: effects reading it re-run when the log grows or is replaced. */
  getLog(): MessageLog;
  selection: () => GraphSelection;
}

/** One drawn row: its place in the thread and its log entry. */
export interface RowView {
  row: ThreadRow;
  entry: LogEntry;
}

export interface TranscriptRows {
  /** The log the rows index into (read once per change, not once per row). */
  log: ComputedRef<MessageLog>;
  rows: ComputedRef<RowSource>;
  /** Ids of messages whose replies are folded away. */
  collapsed: ShallowRef<ReadonlySet<string>>;
  /** What one drawn row shows; built per drawn row only (null past the end). */
  viewOf(position: number): RowView | null;
  /** The message at the playhead: final once completed by then, else in flight (or empty). */
  messageFor(entry: LogEntry): Message;
  /** Folds or unfolds the replies under message `id`. */
  toggle(id: string): void;
}

/**
 * The transcript's rows at the playhead: threaded, or (with a graph selection) the matching
 * messages in order. A seek only cuts the whole-log threading at the playhead (typed arrays; row
 * objects are made per drawn row).
 */
export function useTranscriptRows(source: TranscriptRowsSource): TranscriptRows {
  const { display } = source;
  const collapsed = shallowRef<ReadonlySet<string>>(new Set());
  const visibleCount = computed(() => display.value?.visibleCount ?? 0);

  /**
   * Threading of the whole log, rebuilt only when the log grows (a new message appears), never on
   * a seek or a streaming delta. Not reactive: `rows` re-reads it when the log changes.
   */
  let threadCache: { log: MessageLog; index: ThreadIndex } | null = null;
  function threadIndexOf(log: MessageLog): ThreadIndex {
    if (threadCache?.log !== log || threadCache.index.size !== log.size)
      threadCache = { log, index: new ThreadIndex(log.parents, log.size) };
    return threadCache.index;
  }

  const log = computed<MessageLog>(() => source.getLog());

  /**
   * The last cut and what it was cut from. The rows at a playhead are the log's first `count`
   * messages threaded, whatever comes after them, so while the log, the count, the selection and
   * the folds are the same the rows are too (the log growing past the playhead, as a window reads
   * ahead, redraws no row).
   */
  let lastCut: {
    log: MessageLog;
    count: number;
    selection: GraphSelection;
    hidden: ReadonlySet<string>;
    rows: RowSource;
  } | null = null;

  const rows = computed<RowSource>(() => {
    // Read from the source, not `log`: a log that grew in place is the same object, which
    // `log` does not report as a change.
    const current = source.getLog();
    const entries = current.entries;
    const count = Math.min(visibleCount.value, entries.length);
    const selection = source.selection();
    const hidden = collapsed.value;
    if (
      lastCut &&
      lastCut.log === current &&
      lastCut.count === count &&
      lastCut.selection === selection &&
      lastCut.hidden === hidden
    )
      return lastCut.rows;
    const cut = cutRows(current, count, selection, hidden);
    lastCut = { log: current, count, selection, hidden, rows: cut };
    return cut;
  });

  function cutRows(
    current: MessageLog,
    count: number,
    selection: GraphSelection,
    hidden: ReadonlySet<string>,
  ): RowSource {
    const entries = current.entries;
    if (selection) {
      const picked = new Int32Array(count);
      let length = 0;
      for (let index = 0; index < count; index++) {
        const entry = entries[index] as LogEntry;
        if (matchesSelection(selection, entry.from, entry.to)) picked[length++] = index;
      }
      return flatRows(picked, length);
    }
    return threadIndexOf(current).cut(
      count,
      (index) => hidden.has((entries[index] as LogEntry).id),
      hidden.size > 0,
    );
  }

  function messageFor(entry: LogEntry): Message {
    return messageAtPlayhead(entry, display.value);
  }

  function viewOf(position: number): RowView | null {
    const current = rows.value;
    if (position >= current.length) return null;
    const row = current.rowAt(position);
    return { row, entry: log.value.entries[row.index] as LogEntry };
  }

  function toggle(id: string): void {
    const next = new Set(collapsed.value);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    collapsed.value = next;
  }

  return { log, rows, collapsed, viewOf, messageFor, toggle };
}

import { computed, ref, watch, type ComputedRef, type Ref } from 'vue';
import type { Message } from '@shared/domain';
import type { LogEntry, MessageLog } from '../session/message-log';
import type { RowSource } from './thread-index';

/** Milliseconds of typing pause before the search text is applied. */
const SEARCH_DEBOUNCE_MS = 150;

export interface TranscriptSearchOptions {
  rows: ComputedRef<RowSource>;
  log: ComputedRef<MessageLog>;
  messageFor(entry: LogEntry): Message;
  /** The playhead's seq: streaming text changes what matches. */
  seq: () => number | undefined;
  /** Brings row `position` into view. */
  reveal(position: number): void;
}

export interface TranscriptSearch {
  /** The text in the search box. */
  query: Ref<string>;
  /** The text being searched for (the query after a typing pause). */
  activeQuery: Ref<string>;
  /** Row positions whose message contains the search text. */
  matches: ComputedRef<number[]>;
  /** Which match is current (taken modulo the match count). */
  matchCursor: Ref<number>;
  /** The row position of the current match. */
  highlightedRow: ComputedRef<number | undefined>;
  /** Moves to the next (1) or previous (-1) match and reveals it. */
  nextMatch(direction: 1 | -1): void;
}

/** Case-insensitive text search over the transcript rows shown at the playhead. */
export function useTranscriptSearch(options: TranscriptSearchOptions): TranscriptSearch {
  const query = ref('');
  const activeQuery = ref('');
  const matchCursor = ref(0);

  /**
   * Whether a message holds the needle, kept per message object for the current needle: a
   * completed message is the same object at every playhead, so while a run streams only the
   * messages still in flight are searched again.
   */
  let searched: { needle: string; holds: WeakMap<Message, boolean> } = { needle: '', holds: new WeakMap() };
  function holds(message: Message, needle: string): boolean {
    if (searched.needle !== needle) searched = { needle, holds: new WeakMap() };
    let found = searched.holds.get(message);
    if (found === undefined) {
      found = message.content.toLowerCase().includes(needle);
      searched.holds.set(message, found);
    }
    return found;
  }

  const matches = computed<number[]>(() => {
    const needle = activeQuery.value.trim().toLowerCase();
    if (!needle) return [];
    void options.seq();
    const found: number[] = [];
    const source = options.rows.value;
    const entries = options.log.value.entries;
    for (let position = 0; position < source.length; position++) {
      if (holds(options.messageFor(entries[source.indexAt(position)] as LogEntry), needle))
        found.push(position);
    }
    return found;
  });
  const highlightedRow = computed(() =>
    matches.value.length > 0 ? matches.value[matchCursor.value % matches.value.length] : undefined,
  );

  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  watch(query, (value) => {
    if (searchTimer) clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      activeQuery.value = value;
      matchCursor.value = 0;
      revealMatch();
    }, SEARCH_DEBOUNCE_MS);
  });

  function revealMatch(): void {
    const row = highlightedRow.value;
    if (row !== undefined) options.reveal(row);
  }

  function nextMatch(direction: 1 | -1): void {
    if (matches.value.length === 0) return;
    matchCursor.value = (matchCursor.value + direction + matches.value.length) % matches.value.length;
    revealMatch();
  }

  return { query, activeQuery, matches, matchCursor, highlightedRow, nextMatch };
}

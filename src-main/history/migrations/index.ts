import type { Migration } from './runner';
import { settingsTable } from './001-settings';
import { sessionsTables } from './002-sessions';
import { eventsTables } from './003-events';
import { messagesTables } from './004-messages';
import { sessionOwnersTable } from './005-session-owners';
import { forksColumns } from './006-forks';
import { importHashColumn } from './007-import-hash';
import { messageEndsColumn } from './008-message-ends';
import { compactStore } from './009-compact-store';
import { shortEventKinds } from './010-short-event-kinds';
import { storedAtColumn } from './011-stored-at';
import { runRequestsTable } from './012-run-requests';
import { modelUsageColumns } from './013-model-usage';
import { cjkSearch } from './014-cjk-search';
import { sessionSortOrder } from './015-session-sort-order';
import { contextIndexes } from './016-context-indexes';
import { contextGroupIndex } from './017-context-group-index';

/** Every schema step in order. Append only; never edit a released migration. */
export const MIGRATIONS: readonly Migration[] = [
  settingsTable,
  sessionsTables,
  eventsTables,
  messagesTables,
  sessionOwnersTable,
  forksColumns,
  importHashColumn,
  messageEndsColumn,
  compactStore,
  shortEventKinds,
  storedAtColumn,
  runRequestsTable,
  modelUsageColumns,
  cjkSearch,
  sessionSortOrder,
  contextIndexes,
  contextGroupIndex,
];
export type { Migration } from './runner';
export { migrate } from './runner';

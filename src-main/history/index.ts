export { openDatabase, type SqliteDatabase, type OpenedDatabase, type OpenOptions } from './database';
export { SettingsStore } from './settings-store';
export { createPricer, priced, type PriceSource } from './pricing';
export {
  HistoryStore,
  type HistoryStoreOptions,
  type HistoryChange,
  type ForkCreated,
  type ForkRequest,
} from './history-store';
export type { FamilyTree } from './family';
export type { LastStop, SharedHistory } from './compare-queries';
export { countedSumKey } from './context-queries';
export type { CountedSum, MessageStart, ViewMessage, ViewRead } from './context-queries';
export { openHistory, STORE_FILE, type OpenHistoryOptions, type OpenedHistory } from './open-history';
export { HistoryError, type HistoryErrorCode } from './errors';
export { isLocked } from './store-faults';
export { INTERRUPTED_REASON, recoverInterrupted, type RecoveryReport } from './recovery';
export { buildFtsQuery } from './fts-query';
export type { SessionListQuery, SessionPage } from './session-queries';
export type { MessageCursor, MessagePage, MessagePageQuery } from './message-queries';
export type { SessionListItem, StoredMessage } from './rows';
export { toMessage } from './rows';
export type { SavedFleet, SavedFleetSummary } from './fleet-store';
export type { MessageCapCheck } from './maintenance';
export type { OpenRunRequest, RunRequestKind, RunRequestOutcome, SessionOwner } from './run-requests';
export type { SessionReader, SessionWriter, ImportedEvent, ImportedSessionMeta } from './ports';
export { MIGRATIONS, migrate, type Migration } from './migrations';
export { NamedSetting } from './named-setting';
export { importThreadStarted, threadTurnEnded } from './write-turns';
export type { WriteJob, WriteReport, WriteRequest } from './thread-write-protocol';
export { decodeEventBatch, encodeEventBatch, eventBatchTransfer } from './event-batch-text';
export type { EarlierImport, ImportInProgress, ImportStoreFile, ImportThreadHandoff } from './ports';

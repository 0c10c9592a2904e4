import type { EventBody, FleetInput, PriceOverride, RunEvent, SessionSummary } from '@shared/domain';

/** What export needs from the store. Events come in seq order and are read lazily. */
export interface SessionReader {
  getSession(id: string): { summary: SessionSummary; fleet: FleetInput | null } | null;
  iterateEvents(sessionId: string): Iterable<RunEvent>;
  countEvents(sessionId: string): number;
}

/** One event of an imported session, before the store assigns session id and seq. */
export type ImportedEvent = { t: number; agent: string | null } & EventBody;

export interface ImportedSessionMeta {
  title: string;
  task: string;
  fleetName: string;
  /** Where it came from: 'fleetscope-json', 'autogen-taskresult', 'autogen-teamstate', 'openai-messages', ... */
  source: string;
  createdAt: number;
  tags: string[];
  /** SHA-256 (hex) of the file it came from, so importing the same file again is noticed. */
  sourceHash?: string;
}

/** A session imported earlier from the same file (same content hash). */
export interface EarlierImport {
  sessionId: string;
  title: string;
  source: string;
  messageCount: number;
}

/**
 * An imported session being written in several transactions, so the event loop can answer other
 * requests between them. Until `finish` the session is read-only and live (owned by this process,
 * so a crash leaves it interrupted, never silently complete). After any failure, call `abort`.
 */
export interface ImportInProgress {
  readonly sessionId: string;
  /** Writes the next events, in order, in one transaction. */
  append(events: readonly ImportedEvent[]): void;
  /** Closes open messages, settles status and counters, announces the session; returns its id. */
  finish(): string;
  /** Deletes everything written so far. Safe to call more than once. */
  abort(): void;
  /**
   * Present when the store is a file another connection may write: an import's writer thread
   * (import/worker/write-worker.ts) then writes the events and the ending on a connection of its
   * own instead of `append` and `finish`, and `finishedOnThread` is called after its last commit.
   */
  readonly thread?: ImportThreadHandoff;
}

/** The store file an import's writer thread opens, with the store's own settings. */
export interface ImportStoreFile {
  file: string;
  /** The better-sqlite3 native binding the store was opened with (Electron has its own). */
  nativeBinding?: string;
  /** Events between checkpoints of the folded view. */
  checkpointInterval: number;
  /** The store's WriteTurns (write-turns.ts): the writing thread yields the lock to live writes. */
  writeTurns: SharedArrayBuffer;
  /** Settings' price overrides, which price the import's usage before the price table. */
  priceOverrides: readonly PriceOverride[];
}

export interface ImportThreadHandoff {
  store: ImportStoreFile;
  /** The thread wrote the ending (status, counters) and released the session: announces it, returns its id. */
  finishedOnThread(): string;
}

/** What import needs from the store. */
export interface SessionWriter {
  /** Writes a whole session atomically (one transaction), or nothing; returns its new id. */
  importSession(meta: ImportedSessionMeta, events: Iterable<ImportedEvent>): string;
  /** Starts a session written batch by batch (see ImportInProgress). */
  beginImport(meta: ImportedSessionMeta): ImportInProgress;
  /** The newest finished import of a file with this content hash, if any (stores that record hashes). */
  findImport?(sourceHash: string): EarlierImport | null;
}

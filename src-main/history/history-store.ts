import type { FleetInput, RunEvent, ViewState } from '@shared/domain';
import type { PriceSource } from './pricing';
import type { SessionEdgeStats, SessionUsage, TurnIndex } from '@shared/contract';
import type { EventSink } from '../orchestrator/sink';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import { FleetStore, type SavedFleet, type SavedFleetSummary } from './fleet-store';
import { ForkWriter, type ForkCreated, type ForkRequest } from './fork-writer';
import { familyOf, type FamilyTree } from './family';
import { CompareQueries } from './compare-queries';
import {
  ContextQueries,
  type CountedSum,
  type MessageGroup,
  type MessageStart,
  type ViewMessage,
  type ViewRead,
} from './context-queries';
import { UsageQueries } from './usage-queries';
import { Materializer } from './materializer';
import { LiveWriter } from './live-writer';
import { MessageQueries, type MessagePage, type MessagePageQuery, type TurnQuery } from './message-queries';
import type {
  ImportedEvent,
  EarlierImport,
  ImportedSessionMeta,
  ImportInProgress,
  SessionReader,
  SessionWriter,
} from './ports';
import { currentProcess, HEARTBEAT_MS } from './ownership';
import { claimForContinuation } from './continuation-claim';
import { recoverInterrupted, type RecoveryReport } from './recovery';
import type { SessionListItem, StoredMessage } from './rows';
export type { ForkCreated, ForkRequest } from './fork-writer';
import { SessionQueries, type SessionListQuery, type SessionPage } from './session-queries';
import {
  deleteOlderThan,
  deleteSessionRows,
  markSamples,
  messageCapCheck,
  retentionCandidates,
  type MessageCapCheck,
  type RetentionCandidate,
} from './maintenance';
import { inWriteTurn } from './write-turns';
import { RunRequests } from './run-requests';
import type { StoreFault } from './store-faults';

export interface HistoryStoreOptions {
  /** Events between checkpoints of the folded view; default 500. */
  checkpointInterval?: number;
  /**
   * Milliseconds live events may wait for their group commit; default 16. A run's listeners see
   * an event only after its commit, so this is also how late live views may show it.
   */
  batchMs?: number;
  /** Epoch-millisecond clock; tests pass their own. */
  now?: () => number;
  /** A timer-driven batch failed to commit (disk full, ...). Default: console.error. */
  onWriteError?: (error: unknown) => void;
  /** Milliseconds between heartbeats of the live sessions this process drives; 0 disables. */
  heartbeatMs?: number;
  /** The better-sqlite3 native binding the store was opened with (an import's writer thread opens it too). */
  nativeBinding?: string;
}

/** What changed, so views can refresh. */
export type HistoryChange =
  | { type: 'sessions-changed'; sessionIds: string[] }
  | { type: 'session-deleted'; sessionIds: string[] }
  | { type: 'fleets-changed' };

/**
 * The session store: the runtime's event sink, the export/import ports, and every history query.
 * Synchronous (better-sqlite3); live writes are group commits, one small transaction per
 * `batchMs`, and a run shows its events only once they are committed (EventSink.whenDurable).
 */
export class HistoryStore implements EventSink, SessionReader, SessionWriter {
  private readonly writer: LiveWriter;
  private readonly sessions: SessionQueries;
  private readonly messages: MessageQueries;
  private readonly contexts: ContextQueries;
  private readonly fleets: FleetStore;
  private readonly forks: ForkWriter;
  /** Reads for comparing two sessions (figures, stops, slices, shared history); flush first. */
  readonly comparing: CompareQueries;
  private readonly usageQueries: UsageQueries;
  /** Requests to runs another process drives, and who drives each live session. */
  readonly runRequests: RunRequests;
  private readonly listeners = new Set<(change: HistoryChange) => void>();
  private readonly faultListeners = new Set<(fault: StoreFault) => void>();
  /** Settles (`settle`) waiting for a commit; ended early when a commit fails. */
  private readonly settling: Array<() => void> = [];
  private readonly now: () => number;
  private readonly heartbeat: NodeJS.Timeout | null;

  constructor(
    readonly db: SqliteDatabase,
    private readonly options: HistoryStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sessions = new SessionQueries(db);
    this.messages = new MessageQueries(db);
    this.fleets = new FleetStore(db);
    this.writer = new LiveWriter(db, this.messages, {
      checkpointInterval: Math.max(1, options.checkpointInterval ?? 500),
      batchMs: options.batchMs ?? 16,
      nativeBinding: options.nativeBinding,
      now: this.now,
      onDidCommit: (sessionIds) => this.emit({ type: 'sessions-changed', sessionIds }),
      onWriteError: (error) => {
        // A settle waiting for a commit that failed ends now: its reader's flush throws the fault.
        for (const resolve of this.settling.splice(0)) resolve();
        (options.onWriteError ?? ((e) => console.error('History store: a batch failed to commit', e)))(error);
      },
      onStoreFault: (fault) => {
        for (const listener of this.faultListeners) listener(fault);
      },
    });
    this.forks = new ForkWriter(
      db,
      this.messages,
      new Materializer(db, Math.max(1, options.checkpointInterval ?? 500)),
      this.now,
    );
    this.comparing = new CompareQueries(db, this.messages.lineage);
    this.contexts = new ContextQueries(db, this.messages.lineage);
    this.usageQueries = new UsageQueries(db, this.messages.lineage);
    this.runRequests = new RunRequests(db, this.now);
    const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.heartbeat = heartbeatMs > 0 ? setInterval(() => this.beat(), heartbeatMs) : null;
    this.heartbeat?.unref?.();
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onDidChange(listener: (change: HistoryChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The store stopped taking live writes (a full disk, a read-only folder): the sessions it was
   * writing are halted and their runs must stop now (see LiveWriter).
   */
  onDidFault(listener: (fault: StoreFault) => void): () => void {
    this.faultListeners.add(listener);
    return () => this.faultListeners.delete(listener);
  }

  // EventSink

  append(event: RunEvent): void {
    this.writer.append(event);
  }

  flush(): void {
    this.writer.commit();
  }

  whenDurable(callback: () => void): void {
    this.writer.whenDurable(callback);
  }

  /**
   * Resolves once everything appended so far is committed, asking for that commit now. Unlike
   * `flush` it never blocks this thread while an import's writing thread holds the store's write
   * lock (LiveWriter.commitSoon): a reader that can wait (a handler of the app) settles before it
   * reads a live session, so the read's own flush finds nothing left to commit. A failed commit
   * ends the wait (as does `maxWaitMs`): the reader's flush then retries it, and throws its fault.
   */
  settle(maxWaitMs = 2_000): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const at = this.settling.indexOf(done);
        if (at >= 0) this.settling.splice(at, 1);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      timer.unref?.();
      this.settling.push(done);
      this.writer.commitSoon(done);
    });
  }

  /** Commits what is buffered. The database stays open: whoever opened it closes it. */
  dispose(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.writer.dispose();
  }

  private beat(): void {
    try {
      this.writer.heartbeat();
    } catch (error) {
      // A busy or closed database misses one beat; owners are judged gone only much later.
      this.options.onWriteError?.(error);
    }
  }

  // SessionReader / SessionWriter

  getSession(id: string): { summary: SessionListItem; fleet: FleetInput | null } | null {
    const row = this.sessions.row(id);
    if (!row) return null;
    const summary = this.sessions.get(id) as SessionListItem;
    return { summary, fleet: row.fleet_json === null ? null : (JSON.parse(row.fleet_json) as FleetInput) };
  }

  iterateEvents(sessionId: string, afterSeq?: number, toSeq?: number): Iterable<RunEvent> {
    return this.messages.iterateEvents(sessionId, afterSeq, toSeq);
  }

  countEvents(sessionId: string): number {
    return this.messages.countEvents(sessionId);
  }

  /** Seq of the session's last stored event (an index lookup, unlike countEvents). */
  lastEventSeq(sessionId: string): number {
    return this.messages.lastSeq(sessionId);
  }

  importSession(meta: ImportedSessionMeta, events: Iterable<ImportedEvent>): string {
    return this.writer.importSession(meta, events);
  }

  beginImport(meta: ImportedSessionMeta): ImportInProgress {
    return this.writer.beginImport(meta);
  }

  findImport(sourceHash: string): EarlierImport | null {
    return this.sessions.findImport(sourceHash);
  }

  // Queries

  listSessions(query: SessionListQuery = {}): SessionPage {
    return this.sessions.list(query);
  }

  /** Full id for an id or a unique prefix; throws HistoryError not-found / ambiguous-id. */
  resolveSessionId(idOrPrefix: string): string {
    return this.sessions.resolveId(idOrPrefix);
  }

  pageMessages(sessionId: string, query: MessagePageQuery = {}): MessagePage {
    this.requireSession(sessionId);
    return this.messages.page(sessionId, query);
  }

  getThread(sessionId: string, threadId: string): StoredMessage[] {
    this.requireSession(sessionId);
    return this.messages.thread(sessionId, threadId);
  }

  /** The compacted view right after event `seq` (see MessageQueries.seek). */
  seek(sessionId: string, seq: number): ViewState {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.messages.seek(sessionId, seq);
  }

  /** A message and the seq it started at, through a fork's prefix; null when the session has none. */
  messageStart(sessionId: string, messageId: string): MessageStart | null {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.contexts.start(sessionId, messageId);
  }

  /**
   * Settings' price overrides: usage that arrives unpriced from now on (imports, received traces)
   * is priced by them before the price table, as a live run's calls are. A function is read
   * again when each import starts and after each commit, so overrides another process saves
   * apply at once.
   */
  setPriceOverrides(source: PriceSource): void {
    this.writer.setPriceOverrides(source);
  }

  /** What `agent`'s view gained after `afterSeq`: counted sums and detail rows (see ContextQueries). */
  viewAfter(sessionId: string, agent: string, afterSeq: number): ViewRead {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.contexts.viewAfter(sessionId, agent, afterSeq);
  }

  /** Counted messages of `agent`'s view with `after < seq <= upTo`, summed (see ContextQueries). */
  viewCountedSums(sessionId: string, agent: string, after: number, upTo: number): CountedSum[] {
    this.requireSession(sessionId);
    return this.contexts.countedSums(sessionId, agent, after, upTo);
  }

  /** The last counted messages of `agent`'s view before `beforeSeq`, newest first (see ContextQueries). */
  viewCountedBefore(
    sessionId: string,
    agent: string,
    beforeSeq: number,
    limit: number,
    groups: readonly MessageGroup[],
  ): ViewMessage[] {
    this.requireSession(sessionId);
    return this.contexts.countedBefore(sessionId, agent, beforeSeq, limit, groups);
  }

  /** The first counted message of a sum that has no tool calls or results (see ContextQueries). */
  viewFirstPlainCounted(sessionId: string, sum: MessageGroup, after: number, before: number): number | null {
    this.requireSession(sessionId);
    return this.contexts.firstPlainCounted(sessionId, sum, after, before);
  }

  /** The content of these messages by id (see ContextQueries.messageTexts). */
  messageTexts(sessionId: string, ids: readonly string[]): Map<string, string> {
    this.requireSession(sessionId);
    return this.contexts.messageTexts(sessionId, ids);
  }

  /** Tokens, cost and busy time in total, per agent and per edge, up to `seq` (see UsageQueries). */
  usage(sessionId: string, seq?: number): SessionUsage {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.usageQueries.usage(sessionId, seq);
  }

  /** Graph totals up to `seq` (default: the end) from the stored messages (see MessageQueries.edgeStats). */
  edgeStats(sessionId: string, seq?: number): SessionEdgeStats {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.messages.edgeStats(sessionId, seq ?? Number.MAX_SAFE_INTEGER);
  }

  /**
   * Builds at most `buckets` more of the tallies `edgeStats` and `turnIndex` read up to `seq`
   * (default: the end); true once they are there. A caller that must not block long (a handler)
   * calls it between turns of the event loop until it is true.
   */
  prepareEdges(sessionId: string, buckets: number, seq?: number): boolean {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.messages.prepareEdges(sessionId, seq ?? Number.MAX_SAFE_INTEGER, buckets);
  }

  /** Per-agent turn counts and a page of one agent's turns (see MessageQueries.turns). */
  turnIndex(sessionId: string, query: TurnQuery): TurnIndex {
    this.requireSession(sessionId);
    if (this.writer.isLive(sessionId)) this.flush();
    return this.messages.turns(sessionId, query);
  }

  // Changes

  renameSession(id: string, title: string): SessionListItem {
    const clean = title.trim();
    if (clean === '' || clean.length > 500) {
      throw new HistoryError('invalid-input', 'A title must have 1 to 500 characters.');
    }
    this.requireSession(id);
    inWriteTurn(this.db, () => this.db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(clean, id));
    this.emit({ type: 'sessions-changed', sessionIds: [id] });
    return this.sessions.get(id) as SessionListItem;
  }

  /** Replaces the session's tags (trimmed, empty ones dropped, duplicates removed). */
  setTags(id: string, tags: readonly string[]): SessionListItem {
    this.requireSession(id);
    const clean = [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ''))];
    inWriteTurn(this.db, () =>
      this.db.prepare('UPDATE sessions SET tags = ? WHERE id = ?').run(JSON.stringify(clean), id),
    );
    this.emit({ type: 'sessions-changed', sessionIds: [id] });
    return this.sessions.get(id) as SessionListItem;
  }

  /**
   * Deletes a session with its events, messages and checkpoints. A live run must stop first. A
   * session with forks is refused: they read their history through it (delete the forks first).
   */
  deleteSession(id: string): void {
    this.requireSession(id);
    if (this.writer.isLive(id))
      throw new HistoryError('invalid-input', 'Stop the session before deleting it.');
    const forks = this.sessions.forksOf(id);
    if (forks.length > 0) {
      const named = forks.slice(0, 5).join(', ') + (forks.length > 5 ? ', ...' : '');
      throw new HistoryError(
        'invalid-input',
        `This session has ${forks.length} fork${forks.length === 1 ? '' : 's'} that share its history (${named}); delete ${forks.length === 1 ? 'it' : 'them'} first.`,
      );
    }
    deleteSessionRows(this.db, id);
    this.writer.forget(id);
    this.messages.lineage.forget(id);
    this.emit({ type: 'session-deleted', sessionIds: [id] });
  }

  // Forks

  /**
   * Forks a stored session at a message by reference (see ForkWriter): the fork shares the
   * parent's history up to there and is stopped (`forked`) until it is continued.
   */
  createFork(request: ForkRequest): ForkCreated {
    const parent = this.sessions.row(request.parentId);
    if (!parent) throw new HistoryError('not-found', `No session with id "${request.parentId}".`);
    this.flush();
    const created = this.forks.create(parent, request);
    this.emit({ type: 'sessions-changed', sessionIds: [created.sessionId, parent.id] });
    return created;
  }

  /** The family a session belongs to: its root and every fork below it. */
  family(id: string, limit?: number): FamilyTree {
    this.requireSession(id);
    return familyOf(this.db, id, limit);
  }

  /** The `position`-th message (1 = the first, as `show` numbers them), through a fork's prefix. */
  messageAt(sessionId: string, position: number): StoredMessage | null {
    this.requireSession(sessionId);
    return this.messages.nth(sessionId, position);
  }

  /** Messages of a session (through a fork's prefix). */
  countMessages(sessionId: string): number {
    this.requireSession(sessionId);
    return this.messages.countMessages(sessionId);
  }

  /**
   * Claims a stored session that is not running for a continuation by this process (see
   * continuation-claim.ts). Returns the undo for a continuation that could not start, or null when
   * the session is running already.
   */
  claimForContinuation(id: string): (() => void) | null {
    this.requireSession(id);
    this.flush();
    const undo = claimForContinuation(this.db, id, this.now());
    if (!undo) return null;
    this.emit({ type: 'sessions-changed', sessionIds: [id] });
    return () => {
      undo();
      this.emit({ type: 'sessions-changed', sessionIds: [id] });
    };
  }

  /**
   * Records the fleet a stored session goes on with; an imported session becomes a regular one
   * (writable, so its continuation can be appended).
   */
  setRunFleet(id: string, fleet: FleetInput): void {
    this.requireSession(id);
    inWriteTurn(this.db, () =>
      this.db
        .prepare('UPDATE sessions SET fleet_json = ?, read_only = 0 WHERE id = ?')
        .run(JSON.stringify(fleet), id),
    );
    this.emit({ type: 'sessions-changed', sessionIds: [id] });
  }

  /** What deleteSessionsOlderThan would delete now (see retentionCandidates). */
  retentionCandidates(days: number): RetentionCandidate[] {
    return retentionCandidates(this.db, days, this.now());
  }

  /** Marks the sessions imported from files with these SHA-256 hashes as samples retention keeps. */
  markSamples(sourceHashes: readonly string[]): number {
    return markSamples(this.db, sourceHashes);
  }

  /**
   * Deletes finished sessions that entered this store more than `days` days ago (samples and
   * sessions with forks kept; see retentionCandidates); returns their ids.
   */
  deleteSessionsOlderThan(days: number): string[] {
    const ids = deleteOlderThan(this.db, days, this.now());
    for (const id of ids) this.writer.forget(id);
    if (ids.length > 0) this.emit({ type: 'session-deleted', sessionIds: ids });
    return ids;
  }

  /** Whether the session reached `max` completed messages; the runtime stops with `stopReason`. */
  checkMessageCap(sessionId: string, max: number | null): MessageCapCheck {
    const live = this.writer.tally(sessionId);
    const count = live?.messageCount ?? this.sessions.get(sessionId)?.messageCount;
    if (count === undefined) throw new HistoryError('not-found', `No session with id "${sessionId}".`);
    return messageCapCheck(count, max);
  }

  /**
   * Sets to interrupted the live sessions whose driving process is gone (any process may call it,
   * at any time: sessions a living process drives are left alone).
   */
  recoverInterrupted(): RecoveryReport {
    this.flush();
    const report = recoverInterrupted(this.db, this.now());
    for (const id of report.sessions) this.writer.forget(id);
    if (report.sessions.length > 0) this.emit({ type: 'sessions-changed', sessionIds: report.sessions });
    return report;
  }

  /** Live sessions that another process drives (or that name no owner), with their last seq. */
  sessionsLiveElsewhere(): Array<{ id: string; lastSeq: number }> {
    return this.sessions.liveElsewhere(currentProcess());
  }

  // Saved fleets

  listFleets(): SavedFleetSummary[] {
    return this.fleets.list();
  }

  getFleet(id: string): SavedFleet | null {
    return this.fleets.get(id);
  }

  /** Creates (no id) or replaces a saved fleet; throws HistoryError invalid-input for a bad fleet. */
  saveFleet(fleet: FleetInput, id?: string): SavedFleet {
    const saved = this.fleets.save(fleet, id, this.now());
    this.emit({ type: 'fleets-changed' });
    return saved;
  }

  deleteFleet(id: string): boolean {
    const deleted = this.fleets.delete(id);
    if (deleted) this.emit({ type: 'fleets-changed' });
    return deleted;
  }

  private requireSession(id: string): void {
    if (!this.sessions.row(id)) throw new HistoryError('not-found', `No session with id "${id}".`);
  }

  private emit(change: HistoryChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

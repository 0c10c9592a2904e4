import type { Message, TokenUsage } from '@shared/domain';
import type { SqliteDatabase } from './database';
import type { FtsIndex } from './fts-index';
import type { SessionTally } from './session-tally';
import type { MessageRefs } from './message-refs';
import { completedRow, UPSERT_COMPLETED, usageDetails } from './message-row-sql';
import { usageOfRow } from './rows';
import type { RowBatch } from './row-batch';

const usageTotal = (usage: TokenUsage | undefined): number => (usage ? usage.prompt + usage.completion : 0);

/** Adds to the session's cost, unpriced calls and busy time what `usage` has over `before`. */
function tallyUsage(tally: SessionTally, usage: TokenUsage, before: TokenUsage | undefined): void {
  tally.tokens += usageTotal(usage) - usageTotal(before);
  tally.cost += costOf(usage) - costOf(before);
  tally.unpricedCalls += unpriced(usage) - unpriced(before);
  tally.busyMs += (usage.durationMs ?? 0) - (before?.durationMs ?? 0);
}
const costOf = (usage: TokenUsage | undefined): number => (typeof usage?.cost === 'number' ? usage.cost : 0);
const unpriced = (usage: TokenUsage | undefined): number =>
  usage && typeof usage.cost !== 'number' && usageTotal(usage) > 0 ? 1 : 0;

/**
 * The Materializer's completions and usage of messages: a message's row as its completion leaves
 * it, its full-text entry, and the session's message and token counts. Inside its transaction.
 */
export class MessageCompletions {
  private readonly upsertComplete;
  private readonly selectMessageState;
  private readonly updateUsage;

  constructor(
    db: SqliteDatabase,
    private readonly fts: FtsIndex,
    private readonly refs: MessageRefs,
    /** Where `completeWhole` adds full-text rows when they are batched (Materializer batchRows). */
    private readonly ftsRows: RowBatch | null = null,
  ) {
    this.upsertComplete = db.prepare(UPSERT_COMPLETED);
    this.selectMessageState = db.prepare(
      `SELECT pk, state, prompt_tokens, completion_tokens, first_seq, cached_tokens, reasoning_tokens, model,
        first_token_ms, duration_ms, cost FROM message_rows WHERE sid = ? AND id = ?`,
    );
    this.updateUsage = db.prepare(
      `UPDATE message_rows SET prompt_tokens = ?, completion_tokens = ?, cached_tokens = ?, reasoning_tokens = ?,
        model = ?, first_token_ms = ?, duration_ms = ?, cost = ? WHERE pk = ?`,
    );
  }

  /** The row a message has now (null state: none yet), from memory while it streams. */
  private previous(
    tally: SessionTally,
    sid: number,
    id: string,
  ): {
    pk: number | null;
    state: string | null;
    usage: TokenUsage | undefined;
    firstSeq: number | null;
  } {
    const open = tally.open.get(id);
    if (open) return { pk: open.pk, state: 'streaming', usage: open.usage, firstSeq: null };
    const row = this.selectMessageState.get(sid, id) as
      (Parameters<typeof usageOfRow>[0] & { pk: number; first_seq: number | null }) | undefined;
    if (!row) return { pk: null, state: null, usage: undefined, firstSeq: null };
    const usage = row.prompt_tokens === null && row.completion_tokens === null ? undefined : usageOfRow(row);
    return { pk: row.pk, state: row.state, usage, firstSeq: row.first_seq };
  }

  /** Returns the message's row pk. */
  complete(tally: SessionTally, sid: number, message: Message, seq: number, endedT: number): number {
    const before = this.previous(tally, sid, message.id);
    const open = tally.open.get(message.id);
    if (open) this.refs.beforeCompletion(sid, open, message);
    // A second completion: the first one's events read the row as it is now.
    else if (before.pk !== null) this.refs.writeOut(sid, before.pk, before.firstSeq);
    // Not `RETURNING pk`: with it, FTS5 inserts in the same transaction ran about 4x slower.
    const result = this.upsertComplete.run(completedRow(sid, message, seq, endedT, seq));
    const pk = before.pk ?? Number(result.lastInsertRowid);
    this.fts.add(pk, message.content, before.state !== null && before.state !== 'streaming');
    tally.open.delete(message.id);
    if (before.state !== 'complete') tally.messageCount += 1;
    if (message.usage) tallyUsage(tally, message.usage, before.usage);
    return pk;
  }

  /** The completion of a row applyWholeMessage inserted whole: what `complete` does besides the row. */
  completeWhole(tally: SessionTally, message: Message, pk: number): number {
    if (this.ftsRows) this.ftsRows.add(pk, message.content);
    else this.fts.add(pk, message.content, false);
    tally.messageCount += 1;
    if (message.usage) tallyUsage(tally, message.usage, undefined);
    return pk;
  }

  /** Returns the message's row pk, or null when it has none (the usage is not recorded). */
  recordUsage(tally: SessionTally, sid: number, id: string, usage: TokenUsage): number | null {
    const before = this.previous(tally, sid, id);
    if (before.pk === null) return null;
    this.updateUsage.run(usage.prompt, usage.completion, ...usageDetails(usage), before.pk);
    const open = tally.open.get(id);
    if (open) open.usage = usage;
    tallyUsage(tally, usage, before.usage);
    return before.pk;
  }
}

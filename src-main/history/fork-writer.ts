import { randomUUID } from 'node:crypto';
import {
  FORKED_STOP_REASON,
  isLiveStatus,
  type Fleet,
  type Message,
  type RunEvent,
  type SessionStatus,
} from '@shared/domain';
import type { ForkChange } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import { SID_OF } from './event-codec';
import { MAX_FORK_DEPTH } from './lineage';
import type { Materializer, SessionTally } from './materializer';
import type { MessageQueries } from './message-queries';
import { toMessage, type SessionRow, type StoredMessage } from './rows';
import { writeTransaction } from './write-turns';

export interface ForkRequest {
  parentId: string;
  /** Message number as `show` counts (1 = the task). */
  atMessage: number;
  /** New text for that message (its sender stays); undefined keeps it. */
  text?: string;
  /** The fleet the fork runs with (the parent's, with the requested changes). */
  fleet: Fleet;
  title?: string;
  changes: readonly ForkChange[];
}

export interface ForkCreated {
  sessionId: string;
  /** The parent's last event the fork shares. */
  forkSeq: number;
  /** The message the fork was cut at, as the fork holds it. */
  message: StoredMessage;
}

/**
 * Creates forks by reference. The fork's row names its parent and fork point; it stores only its
 * own first events (seq `forkSeq + 1` on): a `session.started` that marks the fork, the edited
 * message when there is one, and a `session.stopped` (`forked`) until it runs. Nothing of the
 * prefix is copied, so a fork costs a few rows whatever the size of its parent.
 *
 * The fork point: forking at message N keeps every event up to N's completion. With a new text
 * (or when N was cut off by a stop and has no completion event), the fork keeps everything before
 * N began streaming (so the branch not taken leaves no half-written N in the fork's history), or
 * before its completion when another message completed while N streamed (a parallel round: that
 * message is numbered before N and must stay), and records N again as its own first message.
 */
export class ForkWriter {
  private readonly insertSession;
  private readonly eventAt;
  private readonly tokensUpTo;
  private readonly startedAt;
  private readonly completedBetween;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly messages: MessageQueries,
    private readonly materializer: Materializer,
    private readonly now: () => number,
  ) {
    this.insertSession = db.prepare(`INSERT INTO sessions (id, title, task, fleet_name, status, created_at,
      updated_at, tags, source, read_only, parent_session_id, fork_seq, fork_message, fork_changes, root_session_id)
      VALUES (@id, @title, @task, @fleetName, 'running', @createdAt, @createdAt, '[]', 'live', 0, @parent,
      @forkSeq, @forkMessage, @changes, @root)`);
    this.eventAt = db.prepare(`SELECT kind, t FROM event_log WHERE sid = ${SID_OF} AND seq = ?`);
    // A start names its message by row (msg) or, stored whole, in its payload (see event-codec.ts).
    this.startedAt = db.prepare(`SELECT seq FROM event_log e WHERE sid = ${SID_OF} AND seq > ? AND seq <= ?
      AND kind = 'message.started' AND coalesce(
        (SELECT m.id FROM message_rows m WHERE m.pk = e.msg),
        CASE WHEN e.msg IS NULL THEN json_extract(e.payload, '$.messageId') END) = ?
      ORDER BY seq DESC LIMIT 1`);
    this.completedBetween = db.prepare(`SELECT count(*) AS n FROM event_log WHERE sid = ${SID_OF} AND seq > ?
      AND seq < ? AND kind IN ('message.completed', 'message.dropped')`);
    this.tokensUpTo =
      db.prepare(`SELECT coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) AS n,
        coalesce(sum(cost), 0) AS cost, coalesce(sum(duration_ms), 0) AS busyMs,
        count(CASE WHEN cost IS NULL AND coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0) > 0 THEN 1 END)
          AS unpriced
      FROM messages WHERE session_id = ? AND seq > ? AND seq <= ?`);
  }

  create(parent: SessionRow, request: ForkRequest): ForkCreated {
    if (isLiveStatus(parent.status as SessionStatus)) {
      throw new HistoryError(
        'invalid-input',
        'The session is still running; stop it (or wait for it to end) before forking it.',
      );
    }
    if (this.messages.lineage.segments(parent.id).length > MAX_FORK_DEPTH) {
      throw new HistoryError('invalid-input', `Forks cannot be nested more than ${MAX_FORK_DEPTH} deep.`);
    }
    const original = this.messages.nth(parent.id, request.atMessage);
    if (original === null) {
      const count = this.messages.countMessages(parent.id);
      throw new HistoryError(
        'invalid-input',
        `The session has ${count} message${count === 1 ? '' : 's'}; there is no message ${request.atMessage}.`,
      );
    }
    const closing = this.event(parent.id, original.seq);
    const edited = request.text !== undefined && request.text !== original.content;
    // A message closed by a stop has no completion of its own: the fork records it again.
    const again = edited || closing?.kind !== 'message.completed';
    const forkSeq = again ? this.seqBefore(parent.id, original) : original.seq;
    const t = this.event(parent.id, forkSeq)?.t ?? 0;
    const id = `ses_${randomUUID()}`;
    const createdAt = this.now() - Math.round(t);
    const title = (request.title ?? `${parent.title} (fork at message ${request.atMessage})`).slice(0, 300);
    const task = request.atMessage === 1 && edited ? (request.text ?? parent.task) : parent.task;
    const own: Message | null = again ? this.restated(original, edited ? (request.text ?? '') : null) : null;
    writeTransaction(this.db, () => {
      this.insertSession.run({
        id,
        title,
        task,
        fleetName: request.fleet.name,
        createdAt,
        parent: parent.id,
        forkSeq,
        forkMessage: request.atMessage,
        changes: JSON.stringify(request.changes),
        root: parent.root_session_id ?? parent.id,
      });
      const tally = this.prefixTally(parent.id, id, createdAt, forkSeq, t);
      let seq = forkSeq;
      const append = (body: Omit<RunEvent, 'sessionId' | 'seq' | 't'>) => {
        seq += 1;
        this.materializer.apply(tally, { ...body, sessionId: id, seq, t } as RunEvent);
      };
      append({
        agent: null,
        kind: 'session.started',
        payload: {
          title,
          task,
          fleetName: request.fleet.name,
          fleet: request.fleet,
          parentSessionId: parent.id,
          forkSeq,
        },
      });
      if (own !== null) {
        const agent = own.from === 'user' ? null : own.from;
        append({ agent, kind: 'message.completed', payload: { message: own } });
        if (original.droppedReason !== null)
          append({
            agent,
            kind: 'message.dropped',
            payload: { message: own, reason: original.droppedReason },
          });
      }
      append({
        agent: null,
        kind: 'session.stopped',
        payload: {
          status: 'stopped',
          stopReason: FORKED_STOP_REASON,
          detail: `Forked from ${parent.id} at message ${request.atMessage}; not run yet.`,
        },
      });
      this.materializer.checkpoint(tally);
      this.materializer.finishCommit(tally);
    });
    const message = this.messages.nth(id, request.atMessage);
    if (message === null)
      throw new HistoryError('not-found', `The fork ${id} lost message ${request.atMessage}.`);
    return { sessionId: id, forkSeq, message };
  }

  /** The last seq a fork that records `original` again keeps (see the class comment). */
  private seqBefore(sessionId: string, original: StoredMessage): number {
    for (const segment of this.messages.lineage.segments(sessionId)) {
      if (original.seq <= segment.after || original.seq > segment.upTo) continue;
      const started = this.startedAt.get(segment.session, segment.after, original.seq, original.id) as
        { seq: number } | undefined;
      if (!started) break;
      const others = this.completedBetween.get(segment.session, started.seq, original.seq) as { n: number };
      if (others.n === 0) return started.seq - 1;
      break;
    }
    return original.seq - 1;
  }

  private event(sessionId: string, seq: number): { kind: string; t: number } | null {
    for (const segment of this.messages.lineage.segments(sessionId)) {
      if (seq <= segment.after || seq > segment.upTo) continue;
      return (this.eventAt.get(segment.session, seq) as { kind: string; t: number } | undefined) ?? null;
    }
    return null;
  }

  /** Message N as the fork holds it: a new id, the new text (or the old one), no model usage. */
  private restated(original: StoredMessage, text: string | null): Message {
    const { usage: _usage, ...message } = toMessage(original);
    return {
      ...message,
      id: `msg_${randomUUID()}`,
      content: text ?? original.content,
      meta: { ...original.meta, [text !== null ? 'editedFrom' : 'restatedFrom']: original.id },
      state: text !== null ? 'complete' : original.state === 'complete' ? 'complete' : 'partial',
    };
  }

  /** The fork's write state at its fork point: the parent's folded view and totals up to there. */
  private prefixTally(
    parentId: string,
    id: string,
    createdAt: number,
    forkSeq: number,
    t: number,
  ): SessionTally {
    let tokens = 0;
    let cost = 0;
    let unpricedCalls = 0;
    let busyMs = 0;
    for (const segment of this.messages.lineage.segments(parentId)) {
      const upTo = Math.min(segment.upTo, forkSeq);
      if (upTo <= segment.after) continue;
      const sums = this.tokensUpTo.get(segment.session, segment.after, upTo) as {
        n: number;
        cost: number;
        unpriced: number;
        busyMs: number;
      };
      tokens += sums.n;
      cost += sums.cost;
      unpricedCalls += sums.unpriced;
      busyMs += sums.busyMs;
    }
    return {
      id,
      createdAt,
      status: 'running',
      stopReason: null,
      endedAt: null,
      lastSeq: forkSeq,
      lastT: t,
      messageCount: this.messages.countMessages(parentId, forkSeq),
      tokens,
      cost,
      unpricedCalls,
      busyMs,
      view: this.messages.seek(parentId, forkSeq),
      eventsSinceCheckpoint: 0,
      open: new Map(),
    };
  }
}

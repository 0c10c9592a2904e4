import type { Migration } from './runner';

/**
 * What each model call used and cost, and its fold per session, so cost and token figures are read
 * from rows, never from the event log.
 *
 * - `message_rows`: the usage a message's model call reported besides `prompt_tokens` and
 *   `completion_tokens`: `cached_tokens` (part of the prompt read from the provider's cache),
 *   `reasoning_tokens` (part of the completion), `model`, `first_token_ms` and `duration_ms`
 *   (milliseconds from the request), and `cost` (US dollars; null when the call has tokens but no
 *   known price, or reported no usage). Per-agent and per-edge figures are sums over these rows
 *   by sender (`message_rows_by_sender`).
 * - `sessions`: `cost` (the priced calls' sum), `unpriced_calls` (calls with tokens and no price,
 *   so a total is shown complete only when it is 0), `busy_ms` (the calls' durations) and
 *   `duration_ms`, a virtual column (how long the session ran: end, or last change, minus start),
 *   each with an index so the session list sorts by cost, tokens or duration without a scan.
 *
 * Rows from before keep null usage details; their calls with tokens count as unpriced, since the
 * model that answered them was not recorded.
 */
export const modelUsageColumns: Migration = {
  version: 13,
  name: 'model usage and cost',
  up(db) {
    db.exec(`
      ALTER TABLE message_rows ADD COLUMN cached_tokens INTEGER;
      ALTER TABLE message_rows ADD COLUMN reasoning_tokens INTEGER;
      ALTER TABLE message_rows ADD COLUMN model TEXT;
      ALTER TABLE message_rows ADD COLUMN first_token_ms REAL;
      ALTER TABLE message_rows ADD COLUMN duration_ms REAL;
      ALTER TABLE message_rows ADD COLUMN cost REAL;

      ALTER TABLE sessions ADD COLUMN cost REAL NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN unpriced_calls INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN busy_ms REAL NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN duration_ms INTEGER
        GENERATED ALWAYS AS (max(0, coalesce(ended_at, updated_at) - created_at)) VIRTUAL;
      CREATE INDEX sessions_by_cost ON sessions (cost DESC, created_at DESC);
      CREATE INDEX sessions_by_tokens ON sessions (tokens DESC, created_at DESC);
      CREATE INDEX sessions_by_duration ON sessions (duration_ms DESC, created_at DESC);

      DROP VIEW messages;
      CREATE VIEW messages AS
        SELECT m.pk, s.id AS session_id, m.id, m.seq, m.t, m.thread_id, m.parent_id, m.sender, m.receiver, m.kind,
          m.content, m.meta, m.tool_calls, m.tool_results, m.prompt_tokens, m.completion_tokens, m.state,
          m.dropped_reason, m.ended_t, m.cached_tokens, m.reasoning_tokens, m.model, m.first_token_ms,
          m.duration_ms, m.cost
        FROM message_rows m JOIN sessions s ON s.sid = m.sid;
    `);
    countUnpricedCalls(db);
  },
};

/**
 * Sets `unpriced_calls` of every session from before: its calls with tokens, counted as a fork
 * counts its tokens (its parent's up to the fork point, recursively, then its own).
 */
function countUnpricedCalls(db: Parameters<Migration['up']>[0]): void {
  const sessions = db
    .prepare('SELECT id, sid, parent_session_id AS parent, fork_seq AS forkSeq FROM sessions')
    .all() as Array<{
    id: string;
    sid: number;
    parent: string | null;
    forkSeq: number | null;
  }>;
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const calls = db.prepare(`SELECT count(*) AS n FROM message_rows WHERE sid = ? AND seq <= ?
    AND coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0) > 0`);
  const update = db.prepare('UPDATE sessions SET unpriced_calls = ? WHERE sid = ?');
  const upTo = (id: string, seq: number, depth: number): number => {
    const session = byId.get(id);
    if (!session) return 0;
    const own = (calls.get(session.sid, seq) as { n: number }).n;
    if (session.parent === null || session.forkSeq === null || depth > 200) return own;
    return own + upTo(session.parent, Math.min(seq, session.forkSeq), depth + 1);
  };
  for (const session of sessions) update.run(upTo(session.id, Number.MAX_SAFE_INTEGER, 0), session.sid);
}

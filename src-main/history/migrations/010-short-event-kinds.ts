import type { Migration } from './runner';

/**
 * The one-letter codes `event_log.kind_code` stores for each event kind from this version on,
 * ordered by how often they occur (the generated `kind` column tests them in this order). Frozen
 * with this migration: a kind added later is stored by its name (the column's `ELSE`) until a
 * later migration gives it a code.
 */
export const EVENT_KIND_CODES: ReadonlyArray<readonly [code: string, kind: string]> = [
  ['d', 'message.delta'],
  ['s', 'message.started'],
  ['c', 'message.completed'],
  ['a', 'agent.status'],
  ['u', 'usage'],
  ['r', 'tool.requested'],
  ['x', 'tool.executed'],
  ['h', 'handoff'],
  ['e', 'error'],
  ['p', 'message.dropped'],
  ['t', 'termination.check'],
  ['o', 'routing.decision'],
  ['q', 'human.requested'],
  ['g', 'human.given'],
  ['v', 'session.status'],
  ['b', 'session.started'],
  ['n', 'session.continued'],
  ['z', 'session.stopped'],
  ['m', 'span.unmapped'],
];

const KIND_OF_CODE = `CASE kind_code ${EVENT_KIND_CODES.map(([code, kind]) => `WHEN '${code}' THEN '${kind}'`).join(' ')} ELSE kind_code END`;

/**
 * Short event kinds. `event_log.kind` (about 15 bytes a row, 2 to 8 rows a message) becomes
 * `kind_code`, which holds a one-letter code for rows written from now on (EVENT_KIND_CODES), and
 * `kind` is a virtual generated column that reads the code back as the kind's name, so every
 * query that reads or filters `kind` (and the `events` view) is unchanged. Rows written before
 * keep their full name in `kind_code`, which `kind` returns as it is: the upgrade rewrites no
 * row, only the schema (the error index is rebuilt on the generated column). Writers insert
 * `kind_code` (see history/event-codec.ts, `storedKind`); `kind` cannot be inserted.
 */
export const shortEventKinds: Migration = {
  version: 10,
  name: 'short event kinds',
  up(db) {
    db.exec(`
      DROP VIEW events;
      DROP INDEX event_log_errors;
      ALTER TABLE event_log RENAME COLUMN kind TO kind_code;
      ALTER TABLE event_log ADD COLUMN kind TEXT GENERATED ALWAYS AS (${KIND_OF_CODE}) VIRTUAL;
      CREATE INDEX event_log_errors ON event_log (sid, seq) WHERE kind = 'error';
      CREATE VIEW events AS
        SELECT s.id AS session_id, e.seq, e.t, e.kind, e.agent, e.msg, e.payload
        FROM event_log e JOIN sessions s ON s.sid = e.sid;
    `);
  },
};

import { LIVE_SQL } from './live-sql';
import type { SessionStatus } from '@shared/domain';
import type { SessionSort } from '@shared/contract';
import type { SqliteDatabase } from './database';
import { HistoryError } from './errors';
import type { ProcessIdentity } from './ownership';
import type { EarlierImport } from './ports';
import { StatementCache } from './statement-cache';
import { buildFtsQuery, likePattern } from './fts-query';
import { FAMILY_COLUMNS, toSessionListItem, type SessionListItem, type SessionRow } from './rows';

export interface SessionListQuery {
  /** Page size; 1..500, default 50. */
  limit?: number;
  offset?: number;
  status?: SessionStatus | SessionStatus[];
  fleetName?: string;
  /** Created at or after, epoch milliseconds. */
  from?: number;
  /** Created before, epoch milliseconds. */
  to?: number;
  tag?: string;
  /** Free text: matches message content (full-text, word prefix) or title/task (substring). */
  search?: string;
  /** Largest first (`created`: newest first, the default); ties newest first. */
  sort?: SessionSort;
}

/** ORDER BY of each sort; each is an in-order walk of an index (migration 15), no sort step. */
const ORDER_BY: Record<SessionSort, string> = {
  created: 'created_at DESC, id',
  cost: 'cost DESC, created_at DESC, id',
  tokens: 'tokens DESC, created_at DESC, id',
  duration: 'duration_ms DESC, created_at DESC, id',
};

export interface SessionPage {
  items: SessionListItem[];
  /** Sessions matching the filters, across all pages. */
  total: number;
}

/** Read-side queries on sessions, newest first. */
export class SessionQueries {
  private readonly byId;
  private readonly itemById;
  private readonly byPrefix;
  private readonly cache: StatementCache;

  constructor(db: SqliteDatabase) {
    this.cache = new StatementCache(db);
    this.byId = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.itemById = db.prepare(`SELECT *, ${FAMILY_COLUMNS} FROM sessions WHERE id = ?`);
    this.byPrefix = db.prepare('SELECT id FROM sessions WHERE substr(id, 1, length(?)) = ? LIMIT 2');
  }

  /** Live sessions not driven by `me` (another process, or no recorded owner), with their last seq. */
  liveElsewhere(me: ProcessIdentity): Array<{ id: string; lastSeq: number }> {
    return this.cache
      .get(
        `SELECT s.id AS id, (SELECT max(seq) FROM events e WHERE e.session_id = s.id) AS lastSeq
         FROM sessions s LEFT JOIN session_owners o ON o.session_id = s.id
         WHERE s.status IN (${LIVE_SQL})
           AND (o.pid IS NULL OR o.pid != ? OR o.host != ?)`,
      )
      .all(me.pid, me.host)
      .map((row) => {
        const { id, lastSeq } = row as { id: string; lastSeq: number | null };
        return { id, lastSeq: lastSeq ?? 0 };
      });
  }

  /**
   * The newest finished import of a file with this content hash. An import still being written
   * (running) or cut off (interrupted) does not count: importing again is the way to finish it.
   */
  findImport(sourceHash: string): EarlierImport | null {
    const row = this.cache
      .get(
        `SELECT id, title, source, message_count AS messageCount FROM sessions
         WHERE source_hash = ? AND status NOT IN ('running', 'interrupted')
         ORDER BY rowid DESC LIMIT 1`,
      )
      .get(sourceHash) as { id: string; title: string; source: string; messageCount: number } | undefined;
    if (!row) return null;
    const { id: sessionId, ...rest } = row;
    return { sessionId, ...rest };
  }

  /** Ids of the direct forks of a session, oldest first. */
  forksOf(id: string): string[] {
    return (
      this.cache
        .get('SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY created_at, id')
        .all(id) as Array<{ id: string }>
    ).map((row) => row.id);
  }

  get(id: string): SessionListItem | null {
    const row = this.itemById.get(id) as SessionRow | undefined;
    return row ? toSessionListItem(row) : null;
  }

  row(id: string): SessionRow | null {
    return (this.byId.get(id) as SessionRow | undefined) ?? null;
  }

  /** The full id for an id or a unique prefix of one. */
  resolveId(idOrPrefix: string): string {
    if (idOrPrefix.length > 0 && this.byId.get(idOrPrefix)) return idOrPrefix;
    const matches =
      idOrPrefix.length === 0 ? [] : (this.byPrefix.all(idOrPrefix, idOrPrefix) as Array<{ id: string }>);
    if (matches.length === 0) throw new HistoryError('not-found', `No session with id "${idOrPrefix}".`);
    if (matches.length > 1) {
      throw new HistoryError(
        'ambiguous-id',
        `"${idOrPrefix}" matches more than one session; give more of the id.`,
      );
    }
    return (matches[0] as { id: string }).id;
  }

  list(query: SessionListQuery = {}): SessionPage {
    const where: string[] = [];
    const params: Array<string | number> = [];
    const statuses =
      query.status === undefined ? [] : Array.isArray(query.status) ? query.status : [query.status];
    if (statuses.length > 0) {
      where.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
    if (query.fleetName !== undefined) {
      where.push('fleet_name = ?');
      params.push(query.fleetName);
    }
    if (query.from !== undefined) {
      where.push('created_at >= ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('created_at < ?');
      params.push(query.to);
    }
    if (query.tag !== undefined) {
      where.push('EXISTS (SELECT 1 FROM json_each(sessions.tags) WHERE json_each.value = ?)');
      params.push(query.tag);
    }
    const search = query.search?.trim() ?? '';
    if (search !== '') {
      const fts = buildFtsQuery(search);
      const like = likePattern(search);
      const textMatch = "(title LIKE ? ESCAPE '\\' OR task LIKE ? ESCAPE '\\')";
      if (fts === null) {
        where.push(textMatch);
        params.push(like, like);
      } else {
        // A fork matches on its own messages and on those it shares with its ancestors.
        where.push(`(${textMatch} OR id IN (WITH RECURSIVE
            hits (session_id, seq) AS (SELECT m.session_id, m.seq FROM messages_fts
              JOIN messages m ON m.pk = messages_fts.rowid WHERE messages_fts MATCH ?),
            prefix (fork, ancestor, upto, depth) AS (
              SELECT id, parent_session_id, fork_seq, 1 FROM sessions WHERE parent_session_id IS NOT NULL
              UNION ALL
              SELECT p.fork, s.parent_session_id, min(p.upto, s.fork_seq), p.depth + 1 FROM prefix p
                JOIN sessions s ON s.id = p.ancestor WHERE s.parent_session_id IS NOT NULL AND p.depth < 200)
          SELECT session_id FROM hits
          UNION SELECT p.fork FROM prefix p JOIN hits h ON h.session_id = p.ancestor AND h.seq <= p.upto))`);
        params.push(like, like, fts);
      }
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const limit = clamp(query.limit ?? 50, 1, 500);
    const offset = Math.max(0, Math.trunc(query.offset ?? 0));
    const rows = this.cache
      .get(
        `SELECT *, ${FAMILY_COLUMNS} FROM sessions ${clause} ORDER BY ${ORDER_BY[query.sort ?? 'created']} LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, offset) as SessionRow[];
    const total = (
      this.cache.get(`SELECT count(*) AS n FROM sessions ${clause}`).get(...params) as { n: number }
    ).n;
    return { items: rows.map(toSessionListItem), total };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.trunc(Number.isFinite(value) ? value : min)));
}

import type { Migration } from './runner';
import { indexableText } from '../fts-query';

/**
 * Full-text search for words inside Chinese, Japanese and Korean sentences: the index now holds
 * each character of those scripts as a token of its own (`indexableText`). Rows whose text has
 * such characters are indexed again; the others index the same as before and are left alone. The
 * index is contentless with `contentless_delete`, so a row is deleted by rowid alone.
 */
export const cjkSearch: Migration = {
  version: 14,
  name: 'cjk search',
  up(db) {
    const remove = db.prepare('DELETE FROM messages_fts WHERE rowid = ?');
    const insert = db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)');
    // In pages by pk: a statement cannot write while another one is still being read.
    const page = db.prepare(
      "SELECT pk, content FROM message_rows WHERE pk > ? AND state <> 'streaming' ORDER BY pk LIMIT 2000",
    );
    let after = -1;
    for (;;) {
      const rows = page.all(after) as Array<{ pk: number; content: string }>;
      if (rows.length === 0) break;
      for (const row of rows) {
        const text = indexableText(row.content);
        if (text === row.content) continue;
        remove.run(row.pk);
        insert.run(row.pk, text);
      }
      after = (rows.at(-1) as { pk: number }).pk;
    }
  },
};

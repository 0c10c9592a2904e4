import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openHistory } from '../../../src-main/history';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

const SENTENCES: Array<[string, string]> = [
  ['Chinese', '我们今天讨论了如何提高团队的生产力和沟通效率。'],
  ['Japanese', '今日は天気がいいので、散歩に行きましょう。'],
  ['Korean', '우리는 생산력을 높이기 위해 노력합니다.'],
  ['Thai', 'วันนี้อากาศดีมากเราจึงไปเดินเล่นในสวน'],
  ['Khmer', 'ថ្ងៃនេះអាកាសធាតុល្អណាស់'],
  ['English', 'Productivity rose once the weather cleared.'],
];

function fill(history: ReturnType<typeof openTempHistory>): void {
  for (const [title, words] of SENTENCES) {
    const s = new SessionScript();
    for (const event of [
      s.started(title),
      ...s.message(`${title}-1`, 'alice', 'bob', [words]),
      s.stopped('completed', 'Task done'),
    ]) {
      history.store.append(event);
    }
  }
}

const titles = (
  history: { store: { listSessions(q: { search: string }): { items: Array<{ title: string }> } } },
  search: string,
) =>
  history.store
    .listSessions({ search })
    .items.map((item) => item.title)
    .sort();

describe('search in languages written without spaces', () => {
  let history: ReturnType<typeof openTempHistory>;
  afterEach(() => history.cleanup());

  it('finds Chinese, Japanese, Korean, Thai and Khmer words inside a sentence, and only adjacent characters', () => {
    history = openTempHistory();
    fill(history);
    expect(titles(history, '生产力')).toEqual(['Chinese']);
    expect(titles(history, '天気')).toEqual(['Japanese']);
    expect(titles(history, '散歩')).toEqual(['Japanese']);
    expect(titles(history, '생산력')).toEqual(['Korean']);
    expect(titles(history, 'อากาศ')).toEqual(['Thai']);
    expect(titles(history, 'เดินเล่น')).toEqual(['Thai']);
    expect(titles(history, 'អាកាសធាតុ')).toEqual(['Khmer']);
    // Characters of the word, but not next to each other: no match.
    expect(titles(history, '生力')).toEqual([]);
    // Several words are ANDed, in any script; Latin search is as before (prefix on the last word).
    expect(titles(history, '团队 沟通')).toEqual(['Chinese']);
    expect(titles(history, 'weather produc')).toEqual(['English']);
    expect(titles(history, '天気 weather')).toEqual([]);
  });

  it('migration 14 indexes the CJK text of a store written before it', () => {
    history = openTempHistory();
    fill(history);
    // The index as an older build wrote it: whole sentences as single tokens.
    const rows = history.db
      .prepare("SELECT pk, content FROM message_rows WHERE state <> 'streaming'")
      .all() as Array<{
      pk: number;
      content: string;
    }>;
    for (const row of rows) {
      history.db.prepare('DELETE FROM messages_fts WHERE rowid = ?').run(row.pk);
      history.db.prepare('INSERT INTO messages_fts (rowid, content) VALUES (?, ?)').run(row.pk, row.content);
    }
    history.db.pragma('user_version = 13');
    expect(titles(history, '天気')).toEqual([]);
    history.close();

    const reopened = openHistory(history.dir);
    try {
      expect(reopened.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(titles(reopened, '天気')).toEqual(['Japanese']);
      expect(titles(reopened, '生产力')).toEqual(['Chinese']);
      expect(titles(reopened, 'weather')).toEqual(['English']);
    } finally {
      reopened.close();
    }
  });
});

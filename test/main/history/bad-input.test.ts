import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src-shared/domain';
import { openHistory } from '../../../src-main/history';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

const TRICKY: Record<string, string> = {
  emoji: 'Launch 🚀 done ✅ family 👨‍👩‍👧‍👦 flag 🇳🇴',
  rightToLeft: 'مرحبا بالعالم — שלום עולם',
  nul: 'before\0after\0\0end',
  mixed: 'a\u202Eb\uFEFFc\r\n\t"quotes" \\ back </script>',
};

describe('history store: content that must round-trip exactly', () => {
  const opened: Array<{ cleanup(): void }> = [];
  afterEach(() => opened.splice(0).forEach((item) => item.cleanup()));

  it.each(Object.entries(TRICKY))(
    'keeps %s text intact through events, messages, fold and reopening',
    (_name, text) => {
      const history = openTempHistory({ batchMs: 10_000 });
      opened.push(history);
      const s = new SessionScript();
      const chunks = [...text].reduce<string[]>(
        (acc, ch, i) => (i % 3 === 0 ? [...acc, ch] : [...acc.slice(0, -1), acc.at(-1) + ch]),
        [],
      );
      const events = [
        s.started(text, text),
        ...s.message('m1', 'alice', 'bob', chunks, { meta: { thought: text } }),
      ];
      events.push(s.messageStarted('m2', 'alice', 'bob'), s.delta('m2', text));
      for (const event of events) history.store.append(event);
      history.close();

      const again = openHistory(history.dir, { recover: false });
      opened.unshift({ cleanup: () => again.close() });
      const page = again.store.pageMessages(s.sessionId).items;
      expect(page[0]?.content).toBe(text);
      expect(page[0]?.meta).toEqual({ thought: text });
      expect(page[1]?.content).toBe(text);
      expect(again.store.getSession(s.sessionId)?.summary.title).toBe(text);
      expect([...again.store.iterateEvents(s.sessionId)]).toEqual(events);
      const view = foldEvents(again.store.iterateEvents(s.sessionId));
      expect(view.messages.m1?.content).toBe(text);
      expect(view.messages.m2?.content).toBe(text);
      expect(again.store.seek(s.sessionId, s.seq).messages.m2?.content).toBe(text);
    },
  );

  it('finds messages by right-to-left and accented words', () => {
    const history = openTempHistory();
    opened.push(history);
    const s = new SessionScript();
    for (const event of [
      s.started('rtl'),
      ...s.message('m1', 'alice', 'bob', [TRICKY.rightToLeft as string]),
    ])
      history.store.append(event);
    history.store.flush(); // the completion's group commit
    expect(history.store.listSessions({ search: 'שלום' }).total).toBe(1);
    expect(history.store.listSessions({ search: 'بالعالم' }).total).toBe(1);
  });

  it('stores and returns a 100 MB message', { timeout: 120_000 }, () => {
    const history = openTempHistory({ batchMs: 10_000 });
    opened.push(history);
    const s = new SessionScript();
    const unit = 'Lorem ipsum 🚀 שלום\0 ';
    const big = unit
      .repeat(Math.ceil((100 * 1024 * 1024) / Buffer.byteLength(unit)))
      .slice(0, 100 * 1024 * 1024);
    history.store.append(s.started('big'));
    history.store.append(s.messageStarted('big', 'alice', 'bob'));
    history.store.append(s.delta('big', big.slice(0, 1024)));
    history.store.append(s.completed('big', 'alice', 'bob', big));
    history.store.flush(); // the completion's group commit
    const message = history.store.pageMessages(s.sessionId).items[0];
    expect(message?.content.length).toBe(big.length);
    expect(message?.content === big).toBe(true);
    expect(history.store.listSessions({ search: 'lorem' }).total).toBe(1);
  });
});

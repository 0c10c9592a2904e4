import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SYNTHETIC_TIMING_TAG,
  buildImportedEvents,
  importedTags,
  inferFleet,
  readingPause,
} from '../../../../src-main/interop/import/build-events';
import type { ForeignConversation } from '../../../../src-main/interop/import/conversation';
import { contractApp } from '../../../helpers/contract-app';

/** An OpenAI message list: no times anywhere. */
const CHAT = JSON.stringify([
  { role: 'user', content: 'How warm is it in Lisbon in May?' },
  { role: 'assistant', content: 'Usually between 15 and 23 degrees.' },
  { role: 'user', content: 'And in August?' },
  { role: 'assistant', content: 'Warmer: often 28 degrees and more in the afternoon.' },
]);

describe('importing the same file again', () => {
  const opened = contractApp('test', { surface: 'browser' });
  const { call } = opened;

  it('is noticed: the answer names the earlier session and nothing is written', async () => {
    const first = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    expect(first.earlier).toBeUndefined();
    const again = await call('sessions.importData', { fileName: 'renamed copy.json', content: CHAT });
    expect(again).toEqual({
      sessionId: first.sessionId,
      format: first.format,
      messageCount: first.messageCount,
      earlier: { title: (await call('sessions.get', { id: first.sessionId })).summary.title },
    });
    expect((await call('sessions.list', {})).total).toBe(1);
  });

  it('imports it again when asked to, as a session of its own', async () => {
    const first = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    const second = await call('sessions.importData', {
      fileName: 'chat.json',
      content: CHAT,
      allowDuplicate: true,
    });
    expect(second.earlier).toBeUndefined();
    expect(second.sessionId).not.toBe(first.sessionId);
    expect((await call('sessions.list', {})).total).toBe(2);
    // Either of them counts as the earlier import from now on.
    const third = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    expect([first.sessionId, second.sessionId]).toContain(third.sessionId);
    expect(third.earlier).toBeDefined();
  });

  it('tells different content apart, a single changed byte included', async () => {
    await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    const changed = await call('sessions.importData', {
      fileName: 'chat.json',
      content: CHAT.replace('23', '24'),
    });
    expect(changed.earlier).toBeUndefined();
    expect((await call('sessions.list', {})).total).toBe(2);
  });

  it('notices a file the command line imported before', async () => {
    const path = join(opened.temp.dir, 'chat.json');
    writeFileSync(path, CHAT);
    const fromCli = await opened.app.importFile(path);
    const again = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    expect(again.sessionId).toBe(fromCli.sessionId);
    expect(again.earlier).toBeDefined();
  });

  it('does not count a session that was deleted', async () => {
    const first = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    await call('sessions.delete', { id: first.sessionId });
    const again = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    expect(again.earlier).toBeUndefined();
    expect(again.sessionId).not.toBe(first.sessionId);
  });

  it('gives a source without times a readable pace and marks it, so a replay can be followed', async () => {
    const imported = await call('sessions.importData', { fileName: 'chat.json', content: CHAT });
    const { summary } = await call('sessions.get', { id: imported.sessionId });
    expect(summary.tags).toEqual(['imported', SYNTHETIC_TIMING_TAG]);
    const { events } = await call('sessions.events', { id: imported.sessionId, afterSeq: 0 });
    const times = events.flatMap((event) => (event.kind === 'message.completed' ? [event.t] : []));
    const contents = JSON.parse(CHAT) as Array<{ content: string }>;
    expect(times).toEqual([
      0,
      readingPause(contents[0]!.content),
      readingPause(contents[0]!.content) + readingPause(contents[1]!.content),
      readingPause(contents[0]!.content) +
        readingPause(contents[1]!.content) +
        readingPause(contents[2]!.content),
    ]);
  });
});

describe('times of imported conversations', () => {
  const base: ForeignConversation = {
    title: 't',
    task: 'task',
    agents: ['writer'],
    team: { pattern: 'round-robin' },
    messages: [],
    stopReason: 'Imported.',
    createdAt: Date.UTC(2025, 4, 1, 10, 0, 0),
  };
  const timesOf = (conversation: ForeignConversation) =>
    [...buildImportedEvents(conversation, inferFleet(conversation, 'f', 'test'))].flatMap((event) =>
      event.kind === 'message.completed' ? [event.t] : [],
    );

  it('keeps the source’s own times, and does not mark them', () => {
    const conversation: ForeignConversation = {
      ...base,
      messages: [
        { from: 'user', to: 'writer', kind: 'task', content: 'Write', at: base.createdAt },
        { from: 'writer', to: 'user', kind: 'text', content: 'Done', at: base.createdAt + 42_000 },
      ],
    };
    expect(timesOf(conversation)).toEqual([0, 42_000]);
    expect(importedTags(conversation)).toEqual(['imported']);
  });

  it('paces a long message longer, up to a ceiling, and never goes back in time', () => {
    expect(readingPause('')).toBe(1500);
    expect(readingPause('x'.repeat(100))).toBe(4000);
    expect(readingPause('x'.repeat(100_000))).toBe(8000);
    const conversation: ForeignConversation = {
      ...base,
      messages: ['a', 'b'.repeat(400), 'c'].map((content) => ({
        from: 'writer',
        to: 'user',
        kind: 'text' as const,
        content,
      })),
    };
    expect(timesOf(conversation)).toEqual([0, 1525, 1525 + 8000]);
    expect(importedTags(conversation)).toContain(SYNTHETIC_TIMING_TAG);
  });
});

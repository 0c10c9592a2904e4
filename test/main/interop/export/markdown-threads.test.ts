import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Message } from '@shared/domain';
import { exportToStream } from '../../../../src-main/interop/export';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

async function markdownOf(store: MemorySessions, id: string): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  await exportToStream(store, id, 'md', sink);
  return chunks.join('');
}

function said(
  id: string,
  threadId: string,
  from: string,
  to: string,
  parentId: string | null,
  t: number,
): ImportedEvent {
  const message: Message = {
    id,
    threadId,
    parentId,
    from,
    to,
    kind: 'text',
    content: `${from} says ${id}`,
    meta: {},
    state: 'complete',
    t,
  };
  return { t, agent: from === 'user' ? null : from, kind: 'message.completed', payload: { message } };
}

describe('threads in the Markdown export', () => {
  it('labels threads by number and who started them, and names the message a late reply answers', async () => {
    const [started] = [...sampleEvents(0)];
    const store = new MemorySessions();
    const id = store.addSession({}, [
      started!,
      said('m1', 'th-6f1c2a9e-long-id', 'user', 'planner', null, 1),
      said('m2', 'th-6f1c2a9e-long-id', 'planner', 'coder', 'm1', 2),
      said('m3', 'th-0b7d-another-long-id', 'coder', 'reviewer', null, 3),
      said('m4', 'th-6f1c2a9e-long-id', 'reviewer', 'planner', 'm1', 4),
      {
        t: 5,
        agent: null,
        kind: 'session.stopped',
        payload: {
          status: 'completed',
          stopReason: 'max-messages',
          detail: 'The run reached its limit of 4 messages.',
        },
      },
    ]);
    const md = await markdownOf(store, id);
    expect(md).not.toMatch(/th-6f1c|th-0b7d|`m\d`/);
    const headings = md.split('\n').filter((line) => line.startsWith('### '));
    expect(headings).toEqual([
      '### Thread 1, started by user',
      '### Thread 2, started by coder',
      '### Thread 1, continued',
    ]);
    // Message 2 answers the one just before it: nothing to say. Message 4 answers message 1.
    expect(md).toMatch(/\*\*2\. planner → coder\*\* · text · [\d:.]+\n/);
    expect(md).toMatch(/\*\*4\. reviewer → planner\*\* · text · [\d:.]+ · reply to 1\n/);
    expect(md).toContain('**■ Stopped at its message limit** (completed) · ');
    expect(md).toContain(': The run reached its limit of 4 messages.');
    expect(md).toContain('**Stop reason:** Stopped after 4 messages');
    expect(md).not.toContain('max-messages');
  });
});

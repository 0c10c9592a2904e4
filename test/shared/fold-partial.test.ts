import { describe, expect, it } from 'vitest';
import { compactView, foldEvents, type RunEvent } from '@shared/domain';

const header = (seq: number) => ({ sessionId: 's', seq, t: seq, agent: 'bot' });
const message = (state: 'partial' | 'complete') => ({
  id: 'm1',
  threadId: 'm1',
  parentId: null,
  from: 'bot',
  to: 'user',
  kind: 'text' as const,
  content: 'Half a sent',
  meta: {},
  state,
  t: 2,
});

describe('the view fold', () => {
  it('keeps a reply that was cut off as partial, and drops finished messages when compacting', () => {
    const events: RunEvent[] = [
      {
        ...header(1),
        kind: 'message.started',
        payload: { messageId: 'm1', threadId: 'm1', parentId: null, from: 'bot', to: 'user', kind: 'text' },
      },
      { ...header(2), kind: 'message.delta', payload: { messageId: 'm1', text: 'Half a sent' } },
      { ...header(3), kind: 'message.completed', payload: { message: message('partial') } },
    ];
    const view = foldEvents(events);
    expect(view.messages.m1?.state).toBe('partial');
    expect(view.counters.messages).toBe(1);
    expect(compactView(view).order).toEqual([]);
    expect(foldEvents(events.slice(0, 2)).messages.m1?.state).toBe('streaming');
    expect(compactView(foldEvents(events.slice(0, 2))).order).toEqual(['m1']);
  });
});

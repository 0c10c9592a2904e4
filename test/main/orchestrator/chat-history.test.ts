import { describe, expect, it } from 'vitest';
import { agentSpecSchema, type Message } from '@shared/domain';
import { toChatMessages } from '../../../src-main/orchestrator/agents';
import { ChatTranscript } from '../../../src-main/orchestrator/agents/chat-history';

const spec = agentSpecSchema.parse({ name: 'ann', provider: { id: 'custom', model: 'm' } });
let n = 0;
function message(from: string, to: string, extra: Partial<Message> = {}): Message {
  n += 1;
  return {
    id: `m${n}`,
    threadId: 't',
    parentId: null,
    from,
    to,
    kind: 'text',
    content: `text ${n}`,
    meta: {},
    state: 'complete',
    t: n,
    ...extra,
  };
}

describe('an agent history as chat messages', () => {
  it('keeps tool calls that have results and leaves out calls whose result never came', () => {
    const call = { id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' };
    const lost = { id: 'c2', name: 'calculator', arguments: '{"expression":"2+2"}' };
    const chat = toChatMessages(spec, 'ann', [
      message('user', '*', { kind: 'task', content: 'Add' }),
      message('ann', 'ann', { kind: 'function', content: '', toolCalls: [call] }),
      message('ann', 'ann', {
        kind: 'tool',
        toolResults: [{ callId: 'c1', name: 'calculator', content: '2', isError: false }],
      }),
      message('ann', '*', { content: 'It is 2.' }),
      // A fork cut here (or a crash while the tool ran): the call has no result.
      message('ann', 'ann', { kind: 'function', content: 'Checking', toolCalls: [lost] }),
    ]);
    expect(
      chat.map((entry) => [entry.role, 'toolCalls' in entry ? entry.toolCalls?.map((c) => c.id) : null]),
    ).toEqual([
      ['system', null],
      ['user', null],
      ['assistant', ['c1']],
      ['tool', null],
      ['assistant', null],
      ['assistant', null],
    ]);
    expect(chat.at(-1)).toEqual({ role: 'assistant', content: 'Checking' });
  });

  it('a transcript kept between requests reads like a fresh one, as the view grows, a result arrives or the view is replaced', () => {
    const call = { id: 'k1', name: 'calculator', arguments: '{"expression":"3*3"}' };
    const view: Message[] = [message('user', '*', { kind: 'task', content: 'Multiply' })];
    const transcript = new ChatTranscript(spec, 'ann');
    // `plain` says whether a request may skip looking for tool turns to rename.
    const hasToolTurns = (chat: ReturnType<typeof toChatMessages>) =>
      chat.some((entry) => entry.role === 'tool' || (entry.role === 'assistant' && 'toolCalls' in entry));
    const same = () => {
      const chat = transcript.messages(view);
      expect(chat).toEqual(toChatMessages(spec, 'ann', view));
      expect(transcript.plain).toBe(!hasToolTurns(chat));
    };
    same();
    expect(transcript.plain).toBe(true);
    view.push(message('bob', '*', { content: 'go on' }));
    same();
    // The call waits for its result: left out now, kept once the result is in the view.
    view.push(message('ann', 'ann', { kind: 'function', content: '', toolCalls: [call] }));
    expect(transcript.messages(view).at(-1)).toEqual({ role: 'assistant', content: '' });
    expect(transcript.plain).toBe(true);
    view.push(
      message('ann', 'ann', {
        kind: 'tool',
        toolResults: [{ callId: 'k1', name: 'calculator', content: '9', isError: false }],
      }),
    );
    same();
    expect(transcript.plain).toBe(false);
    expect(transcript.messages(view).at(-2)).toMatchObject({ role: 'assistant', toolCalls: [call] });
    view.push(message('ann', '*', { content: 'It is 9.' }));
    same();
    // Each answer is a new array: what a caller keeps does not change afterwards.
    const kept = transcript.messages(view);
    view.push(message('bob', '*', { content: 'thanks' }));
    expect(kept).toHaveLength(6);
    same();
    // A view replaced by another (resume) is read from its start.
    const replaced = [message('user', '*', { kind: 'task', content: 'Again' })];
    expect(transcript.messages(replaced)).toEqual(toChatMessages(spec, 'ann', replaced));
    expect(transcript.plain).toBe(true);
  });
});

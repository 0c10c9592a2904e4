import { describe, expect, it } from 'vitest';
import type { Message } from '@shared/domain';
import { buildCondition } from '../../../src-main/orchestrator';

let counter = 0;
function message(partial: Partial<Message>): Message {
  counter += 1;
  return {
    id: `m${counter}`,
    threadId: 't',
    parentId: null,
    from: 'alice',
    to: '*',
    kind: 'text',
    content: '',
    meta: {},
    state: 'complete',
    t: 0,
    ...partial,
  };
}

const input = (messages: Message[], extra: { now?: number; externalStop?: boolean } = {}) => ({
  messages,
  now: extra.now ?? Date.now(),
  externalStop: extra.externalStop ?? false,
});

describe('termination conditions', () => {
  it('max-messages counts across checks and fires at the limit', () => {
    const condition = buildCondition({ type: 'max-messages', max: 3 });
    expect(condition.check(input([message({}), message({})]))).toBeNull();
    expect(condition.check(input([message({})]))?.condition).toBe('max-messages');
  });

  it('text-mention only listens to the named sources', () => {
    const condition = buildCondition({ type: 'text-mention', text: 'DONE', sources: ['bob'] });
    expect(condition.check(input([message({ from: 'alice', content: 'DONE' })]))).toBeNull();
    expect(condition.check(input([message({ from: 'team/bob', content: 'we are DONE' })]))?.detail).toContain(
      'team/bob',
    );
  });

  it('token-budget adds prompt and completion tokens', () => {
    const condition = buildCondition({ type: 'token-budget', maxTokens: 100 });
    expect(condition.check(input([message({ usage: { prompt: 40, completion: 20 } })]))).toBeNull();
    expect(condition.check(input([message({ usage: { prompt: 30, completion: 10 } })]))?.condition).toBe(
      'token-budget',
    );
  });

  it('timeout fires once its time has passed since the last reset and says when it is due', () => {
    const condition = buildCondition({ type: 'timeout', seconds: 2 });
    condition.reset(1_000);
    expect(condition.wakeAt()).toBe(3_000);
    expect(condition.check(input([], { now: 2_999 }))).toBeNull();
    expect(condition.check(input([], { now: 3_000 }))?.condition).toBe('timeout');
  });

  it('handoff fires on a handoff message to the target only', () => {
    const condition = buildCondition({ type: 'handoff', target: 'user' });
    expect(condition.check(input([message({ kind: 'handoff', to: 'billing' })]))).toBeNull();
    expect(condition.check(input([message({ kind: 'text', to: 'user' })]))).toBeNull();
    expect(condition.check(input([message({ kind: 'handoff', to: 'user' })]))?.condition).toBe('handoff');
  });

  it('stop-message fires on a stop kind', () => {
    const condition = buildCondition({ type: 'stop-message' });
    expect(condition.check(input([message({ content: 'stop' })]))).toBeNull();
    expect(condition.check(input([message({ kind: 'stop' })]))?.condition).toBe('stop-message');
  });

  it('external fires only when a stop was asked', () => {
    const condition = buildCondition({ type: 'external' });
    expect(condition.check(input([message({})]))).toBeNull();
    expect(condition.check(input([], { externalStop: true }))?.condition).toBe('external');
  });

  it('source-match fires when a listed agent speaks', () => {
    const condition = buildCondition({ type: 'source-match', sources: ['judge'] });
    expect(condition.check(input([message({ from: 'alice' })]))).toBeNull();
    expect(condition.check(input([message({ from: 'judge' })]))?.detail).toBe('judge replied.');
  });
});

describe('AND / OR algebra', () => {
  it('OR fires on the first part and names it', () => {
    const condition = buildCondition({
      type: 'or',
      conditions: [
        { type: 'max-messages', max: 10 },
        { type: 'text-mention', text: 'BYE' },
      ],
    });
    expect(condition.check(input([message({ content: 'hi' })]))).toBeNull();
    expect(condition.check(input([message({ content: 'BYE' })]))?.condition).toBe('text-mention');
  });

  it('AND waits until every part has fired, even at different messages, and remembers', () => {
    const condition = buildCondition({
      type: 'and',
      conditions: [
        { type: 'text-mention', text: 'APPROVED' },
        { type: 'max-messages', max: 3 },
      ],
    });
    expect(condition.check(input([message({ content: 'APPROVED' })]))).toBeNull();
    expect(condition.check(input([message({})]))).toBeNull();
    const result = condition.check(input([message({})]));
    expect(result?.condition).toBe('text-mention and max-messages');
    expect(result?.detail).toContain('APPROVED');
  });

  it('nests: (A AND B) OR C', () => {
    const condition = buildCondition({
      type: 'or',
      conditions: [
        {
          type: 'and',
          conditions: [
            { type: 'source-match', sources: ['judge'] },
            { type: 'text-mention', text: 'VERDICT' },
          ],
        },
        { type: 'stop-message' },
      ],
    });
    expect(condition.check(input([message({ from: 'judge', content: 'thinking' })]))).toBeNull();
    expect(condition.check(input([message({ from: 'alice', content: 'VERDICT?' })]))?.condition).toBe(
      'source-match and text-mention',
    );
    const other = buildCondition({
      type: 'or',
      conditions: [
        {
          type: 'and',
          conditions: [
            { type: 'source-match', sources: ['judge'] },
            { type: 'max-messages', max: 99 },
          ],
        },
        { type: 'stop-message' },
      ],
    });
    expect(other.check(input([message({ from: 'judge' })]))).toBeNull();
    expect(other.check(input([message({ kind: 'stop' })]))?.condition).toBe('stop-message');
  });

  it('reset forgets fired parts and counts', () => {
    const condition = buildCondition({
      type: 'and',
      conditions: [
        { type: 'text-mention', text: 'X' },
        { type: 'max-messages', max: 2 },
      ],
    });
    condition.check(input([message({ content: 'X' })]));
    condition.reset(Date.now());
    expect(condition.check(input([message({})]))).toBeNull();
    expect(condition.check(input([message({})]))).toBeNull();
    expect(condition.check(input([message({ content: 'X' })]))?.condition).toBe(
      'text-mention and max-messages',
    );
  });

  it('composites report the earliest wake time of their timed parts', () => {
    const condition = buildCondition({
      type: 'or',
      conditions: [
        { type: 'timeout', seconds: 5 },
        { type: 'and', conditions: [{ type: 'timeout', seconds: 1 }, { type: 'stop-message' }] },
      ],
    });
    condition.reset(0);
    expect(condition.wakeAt()).toBe(1_000);
  });
});

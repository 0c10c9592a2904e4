import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import type { Message } from '@shared/domain';
import MessageItem from '../../src-renderer/transcript/MessageItem.vue';
import { rowProps } from './message-row';

function reply(usage: Message['usage']): Message {
  return {
    id: 'm2',
    threadId: 't',
    parentId: null,
    from: 'writer',
    to: 'critic',
    kind: 'text',
    content: 'A plan.',
    meta: {},
    state: 'complete',
    t: 1200,
    ...(usage ? { usage } : {}),
  };
}

const mountFor = (message: Message) =>
  mount(MessageItem, {
    props: rowProps(message),
  });

describe('the usage chip on a transcript message', () => {
  it('shows tokens and cost, with the call details on hover', () => {
    const chip = mountFor(
      reply({
        prompt: 1200,
        completion: 300,
        cached: 1000,
        reasoning: 120,
        model: 'gpt-4o-mini',
        provider: 'openai',
        firstTokenMs: 420,
        durationMs: 2300,
        cost: 0.0042,
      }),
    ).get('[data-testid="usage-chip"]');
    expect(chip.text()).toBe('1500 tok · $0.0042');
    expect(chip.attributes('title')!.split('\n')).toEqual([
      'gpt-4o-mini (openai)',
      '1200 input tokens, 1000 cached',
      '300 output tokens, 120 reasoning',
      'first token after 420 ms',
      'took 2.3 s',
      'cost $0.0042',
    ]);
  });

  it('says a call has no known price, and shows no chip without usage', () => {
    const unpriced = mountFor(reply({ prompt: 10, completion: 5, model: 'my-local-model', cost: null })).get(
      '[data-testid="usage-chip"]',
    );
    expect(unpriced.text()).toBe('15 tok');
    expect(unpriced.classes()).toContain('unpriced');
    expect(unpriced.attributes('title')).toContain('no known price for this model');
    expect(mountFor(reply(undefined)).find('[data-testid="usage-chip"]').exists()).toBe(false);
  });
});

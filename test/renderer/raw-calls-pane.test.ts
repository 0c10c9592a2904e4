import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ModelCallItem, ModelCallList } from '@shared/contract';
import RawCallsPane from '../../src-renderer/session-view/RawCallsPane.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { createFakeBridge } from '../helpers/fake-bridge';

function call(seq: number, agent: string, extra: Partial<ModelCallItem> = {}): ModelCallItem {
  return {
    seq,
    t: seq * 1000,
    agent,
    callId: `span${seq}`,
    model: 'gpt-4o-mini',
    usage: { prompt: 120, completion: 30, model: 'gpt-4o-mini' },
    inputs: [
      { role: 'system', text: `You are ${agent}.` },
      { role: 'user', name: 'Planner', text: `Question ${seq}` },
    ],
    sentAgain: 0,
    outputs: [{ role: 'assistant', text: `Answer ${seq}` }],
    ...extra,
  };
}

/** A backend answering `sessions.modelCalls` with `pages`, one per offset asked for. */
function withPages(pages: Record<number, ModelCallList>) {
  const fake = createFakeBridge((channel, input) => {
    if (channel !== 'sessions.modelCalls')
      return { ok: false, error: { code: 'unknown-channel', message: channel } };
    const { offset } = input as { offset: number };
    const page = pages[offset];
    return page
      ? { ok: true, value: page }
      : { ok: false, error: { code: 'not-found', message: 'No such page.' } };
  });
  setBridge(fake.bridge);
  return fake;
}

const mountPane = (source: string) =>
  mount(RawCallsPane, {
    props: { sessionId: 'ses_1', source, growth: 0, colorOf: () => '#123456' },
  });

describe('the raw model calls of a session rebuilt from traces', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows each call with its agent, what it was sent, its answer, model and tokens; resent history folded', async () => {
    const fake = withPages({
      0: {
        calls: [
          call(3, 'Critic'),
          call(9, 'Critic', {
            inputs: [
              { role: 'system', text: 'You are Critic.' },
              { role: 'user', text: 'Question 3' },
              { role: 'assistant', text: 'Answer 3' },
              { role: 'user', text: 'Now the budget?' },
            ],
            sentAgain: 3,
            outputs: [
              {
                role: 'assistant',
                text: '',
                toolCalls: [{ id: 'c1', name: 'lookup_budget', arguments: '{"year":2026}' }],
              },
            ],
          }),
        ],
        total: 3,
        nextOffset: 2,
      },
      2: { calls: [call(12, 'Writer', { error: 'rate limited', outputs: [] })], total: 3, nextOffset: null },
    });
    const view = mountPane('otlp');
    await flushPromises();
    expect(fake.calls[0]).toMatchObject({
      channel: 'sessions.modelCalls',
      input: { id: 'ses_1', offset: 0 },
    });
    const cards = view.findAll('[data-testid="raw-call"]');
    expect(cards).toHaveLength(2);
    expect(cards[0]!.text()).toContain('Critic');
    expect(cards[0]!.text()).toContain('user (Planner)');
    expect(cards[0]!.text()).toContain('Question 3');
    expect(cards[0]!.get('[data-testid="raw-call-output"]').text()).toBe('Answer 3');
    expect(cards[0]!.get('[data-testid="raw-call-usage"]').text()).toContain('120 in, 30 out, gpt-4o-mini');
    // The second call resent three messages: folded, with only the new one shown.
    expect(cards[1]!.get('[data-testid="raw-call-again"]').text()).toContain(
      "3 messages sent again from Critic's previous call",
    );
    const fresh = cards[1]!.findAll('[data-testid="raw-call-input"]');
    expect(fresh.map((row) => [row.get('.role').text(), row.get('.text').text()])).toEqual([
      ['user', 'Now the budget?'],
    ]);
    expect(cards[1]!.get('[data-testid="raw-call-output"]').text()).toBe('lookup_budget({"year":2026})');
    // The rest on request.
    await view.get('[data-testid="raw-calls-more"]').trigger('click');
    await flushPromises();
    expect(fake.calls[1]).toMatchObject({ input: { offset: 2 } });
    expect(view.findAll('[data-testid="raw-call"]')).toHaveLength(3);
    expect(view.get('[data-testid="raw-call-error"]').text()).toContain('rate limited');
    expect(view.find('[data-testid="raw-calls-more"]').exists()).toBe(false);
  });

  it('says why a session Fleetscope ran has no raw calls, and goes back to the conversation', async () => {
    withPages({ 0: { calls: [], total: 0, nextOffset: null } });
    const view = mountPane('live');
    await flushPromises();
    expect(view.get('[data-testid="raw-calls-empty"]').text()).toContain(
      'Fleetscope ran this session itself, so its conversation is its model calls',
    );
    await view.get('[data-testid="raw-calls-back"]').trigger('click');
    expect(view.emitted('showConversation')).toHaveLength(1);
  });

  it('says an import of messages holds no calls, and shows a failure to read them as such', async () => {
    withPages({ 0: { calls: [], total: 0, nextOffset: null } });
    const imported = mountPane('autogen');
    await flushPromises();
    expect(imported.get('[data-testid="raw-calls-empty"]').text()).toContain(
      'recorded messages, not the calls',
    );
    withPages({});
    const failed = mountPane('otlp');
    await flushPromises();
    expect(failed.get('[role="alert"]').text()).toContain('No such page.');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { SessionContext } from '@shared/contract';
import { setBridge } from '../../src-renderer/bridge/current';
import ContextInspector from '../../src-renderer/context/ContextInspector.vue';
import { contextFigures } from '../../src-renderer/context/context-figures';
import { useContextStore } from '../../src-renderer/session/context-store';
import { useSessionInfoStore } from '../../src-renderer/session/session-info-store';
import { useMessageSelection } from '../../src-renderer/session/message-selection-store';
import { createFakeBridge } from '../helpers/fake-bridge';

function context(overrides: Partial<SessionContext> = {}): SessionContext {
  return {
    messageId: 'm4',
    agent: 'writer',
    seq: 12,
    model: 'gpt-4o-mini',
    windowTokens: 128_000,
    reportedPromptTokens: 90,
    countedTokens: 70,
    estimatedTokens: 20,
    groups: [
      { kind: 'system', sender: null, parts: 1, tokens: 8, estimatedTokens: 8 },
      { kind: 'task', sender: 'user', parts: 1, tokens: 12, estimatedTokens: 12 },
      { kind: 'own', sender: 'writer', parts: 1, tokens: 30, estimatedTokens: 0 },
      { kind: 'message', sender: 'critic', parts: 1, tokens: 20, estimatedTokens: 0 },
    ],
    parts: [
      {
        kind: 'system',
        sender: null,
        messageId: null,
        tokens: 8,
        estimated: true,
        preview: 'You write plans.',
      },
      {
        kind: 'task',
        sender: 'user',
        messageId: 'm1',
        tokens: 12,
        estimated: true,
        preview: 'Plan a picnic',
      },
      { kind: 'own', sender: 'writer', messageId: 'm2', tokens: 30, estimated: false, preview: 'A draft' },
      {
        kind: 'message',
        sender: 'critic',
        messageId: 'm3',
        tokens: 20,
        estimated: false,
        preview: 'critic: ok',
      },
    ],
    omittedParts: 0,
    note: null,
    ...overrides,
  };
}

describe('context inspector', () => {
  let answer: SessionContext | null;
  let fake: ReturnType<typeof createFakeBridge>;
  let wrapper: VueWrapper | null = null;

  beforeEach(() => {
    setActivePinia(createPinia());
    answer = context();
    fake = createFakeBridge((channel) =>
      channel === 'sessions.context' && answer
        ? { ok: true, value: answer }
        : { ok: false, error: { code: 'not-found', message: 'The session has no message "m9".' } },
    );
    setBridge(fake.bridge);
  });
  afterEach(() => {
    wrapper?.unmount();
    wrapper = null;
  });

  async function mounted(): Promise<VueWrapper> {
    wrapper = mount(ContextInspector, { attachTo: document.body });
    await flushPromises();
    return wrapper;
  }

  it('shows the parts against the window, marks estimates and names what the provider reported', async () => {
    const view = await mounted();
    expect(view.find('[data-testid="context-inspector"]').exists()).toBe(false);
    await useContextStore().show('s1', 'm4');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'sessions.context', input: { id: 's1', messageId: 'm4' } });
    expect(view.get('h2').text()).toBe("Context of writer's call");
    expect(view.get('[data-testid="context-model"]').text()).toBe('gpt-4o-mini');
    expect(view.get('[data-testid="context-used"]').text()).toBe('90 of 128k tokens (0.1%)');
    expect(view.get('[data-testid="context-reported"]').text()).toContain(
      '90 prompt tokens; the parts add up to 70 (20 more went to message framing and tool definitions)',
    );
    expect(view.get('[data-testid="context-estimates"]').text()).toContain('≈ 20');
    const rows = view
      .findAll('[data-testid="context-group"]')
      .map((row) => row.findAll('td').map((cell) => cell.text()));
    expect(rows).toEqual([
      ['System prompt', '—', '1', '≈8'],
      ['Task', 'user', '1', '≈12'],
      ['Its own replies', 'writer', '1', '30'],
      ['Messages from others', 'critic', '1', '20'],
    ]);
    expect(view.findAll('[data-testid="context-part"]')).toHaveLength(4);
  });

  it('picks the message a part came from', async () => {
    const view = await mounted();
    await useContextStore().show('s1', 'm4');
    await flushPromises();
    await view.findAll('[data-testid="context-part"] button')[2]!.trigger('click');
    expect(useMessageSelection().messageId).toBe('m2');
  });

  it('opens with C on the picked message, says what to do when none is picked, and closes with Escape', async () => {
    const view = await mounted();
    useSessionInfoStore().sessionId = 's1';
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'c' }));
    await flushPromises();
    expect(view.get('[data-testid="context-empty"]').text()).toContain('No message picked');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await flushPromises();
    expect(view.find('[data-testid="context-inspector"]').exists()).toBe(false);

    useMessageSelection().select('m4', 'transcript');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'c' }));
    await flushPromises();
    expect(fake.calls.at(-1)?.input).toEqual({ id: 's1', messageId: 'm4' });
    expect(view.findAll('[data-testid="context-group"]')).toHaveLength(4);
  });

  it('shows a note and an error clearly', async () => {
    answer = context({
      note: 'A person wrote this message: no model read a context for it.',
      groups: [],
      parts: [],
    });
    const view = await mounted();
    await useContextStore().show('s1', 'm1');
    await flushPromises();
    expect(view.get('[data-testid="context-note"]').text()).toMatch(/A person wrote this message/);
    expect(view.find('[data-testid="context-meter"]').exists()).toBe(false);
    answer = null;
    await useContextStore().show('s1', 'm9');
    await flushPromises();
    expect(view.get('[data-testid="context-error"]').text()).toBe('The session has no message "m9".');
  });

  it('says when the context is larger than the window, and when the window is unknown', () => {
    const over = contextFigures(context({ windowTokens: 50 }));
    expect(over.overflow).toMatch(/More than the window by 40 tokens/);
    expect(over.segments.reduce((sum, segment) => sum + segment.percent, 0)).toBeCloseTo((70 / 90) * 100);
    const unknown = contextFigures(context({ windowTokens: null, reportedPromptTokens: null }));
    expect(unknown.usedLabel).toBe("70 tokens (the model's window is not known)");
    expect(unknown.reportedLabel).toBeNull();
  });
});

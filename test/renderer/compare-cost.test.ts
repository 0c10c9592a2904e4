import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { CompareSide, SessionUsage } from '@shared/contract';
import { emptyFigures, type UsageFigures } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import CompareFigures from '../../src-renderer/compare/CompareFigures.vue';
import type { CompareSummary } from '../../src-renderer/compare/compare-store';
import { createFakeBridge } from '../helpers/fake-bridge';

const figures = (cost: number, unpricedCalls = 0, busyMs = 1500): UsageFigures => ({
  ...emptyFigures(),
  calls: 3,
  inputTokens: 300,
  outputTokens: 90,
  cost,
  unpricedCalls,
  busyMs,
});

function side(id: string): CompareSide {
  return {
    sessionId: id,
    title: id,
    status: 'completed',
    stopReason: 'max messages',
    stopDetail: null,
    forkOf: null,
    messages: 7,
    tokens: 390,
    durationMs: 2000,
    toolCalls: 0,
    errors: 0,
  };
}

const agent = { messages: 3, tokens: 390, timeMs: 1000, toolCalls: 0, errors: 0 };
const summary: CompareSummary = {
  a: side('A'),
  b: side('B'),
  commonPrefix: 3,
  divergeAt: 4,
  ancestorId: 'A',
  totalPairs: 7,
  agents: [{ name: 'planner', a: agent, b: agent, differs: false }],
  edges: [],
};

const usage: Record<string, SessionUsage> = {
  A: { seq: 20, total: figures(0.004), agents: [{ name: 'planner', figures: figures(0.004) }], edges: [] },
  B: {
    seq: 22,
    total: figures(0.0052, 1, 2700),
    agents: [{ name: 'planner', figures: figures(0.0052, 1, 2700) }],
    edges: [],
  },
};

describe('compare: cost per agent and per session', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    const fake = createFakeBridge((channel, input) =>
      channel === 'sessions.usage'
        ? { ok: true, value: usage[(input as { id: string }).id] }
        : { ok: false, error: { code: 'not-found', message: 'no' } },
    );
    setBridge(fake.bridge);
  });

  it('shows both costs with B’s difference, and says when calls had no price', async () => {
    const view = mount(CompareFigures, { props: { summary, usage: { a: usage.A!, b: usage.B! } } });
    await flushPromises();
    const cell = view.get('[data-testid="compare-agent"] [data-testid="compare-cost"]');
    expect(cell.get('.a').text()).toBe('$0.0040');
    expect(cell.get('.b').text()).toBe('$0.0052 + 1 call without a price+$0.0012');
    expect(cell.classes()).toContain('changed');
    expect(view.get('[data-testid="compare-total-cost"] .a').text()).toBe('$0.0040');
  });

  it('shows busy time per agent and per session beside cost, with B’s difference', async () => {
    const view = mount(CompareFigures, { props: { summary, usage: { a: usage.A!, b: usage.B! } } });
    await flushPromises();
    const headers = view.findAll('thead th').map((header) => header.text());
    expect(headers.slice(-2)).toEqual(['Cost', 'Busy']);
    const cell = view.get('[data-testid="compare-agent"] [data-testid="compare-busy"]');
    expect(cell.get('.a').text()).toBe('1.5 s');
    expect(cell.get('.b').text()).toBe('2.7 s+1.2 s');
    const total = view.get('[data-testid="compare-total-busy"]');
    expect(total.get('.b small').text()).toBe('+1.2 s');
  });
});

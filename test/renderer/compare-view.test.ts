import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { Compare, ComparePair, CompareSide, StoredMessage } from '@shared/contract';
import { setBridge } from '../../src-renderer/bridge/current';
import CompareView from '../../src-renderer/compare/CompareView.vue';
import { createFakeBridge } from '../helpers/fake-bridge';

const TOTAL = 260;
const PREFIX = 120;

function message(side: 'a' | 'b', position: number, content: string): StoredMessage {
  return {
    id: `${position > PREFIX ? side : 'shared'}-${position}`,
    threadId: 't',
    parentId: null,
    from: position === 1 ? 'user' : position % 2 ? 'critic' : 'writer',
    to: '*',
    kind: position === 1 ? 'task' : 'text',
    content,
    meta: {},
    state: 'complete',
    t: position * 10,
    seq: position * 3,
    droppedReason: null,
  };
}

/** Pair `position` of two branches that share 120 messages; B is 20 messages shorter. */
function pair(position: number): ComparePair {
  if (position <= PREFIX) {
    const shared = message('a', position, `Shared message ${position}`);
    return { position, a: shared, b: { ...shared }, same: true, segments: null };
  }
  const a = message('a', position, `The quick fox ${position}`);
  const b = position <= TOTAL - 20 ? message('b', position, `The slow fox ${position}`) : null;
  return {
    position,
    a,
    b,
    same: false,
    segments: b
      ? [
          { text: 'The ', side: 'both' },
          { text: 'quick', side: 'a' },
          { text: 'slow', side: 'b' },
          { text: ` fox ${position}`, side: 'both' },
        ]
      : null,
  };
}

function side(id: string, overrides: Partial<CompareSide> = {}): CompareSide {
  return {
    sessionId: id,
    title: `Session ${id}`,
    status: 'completed',
    stopReason: 'max-messages',
    stopDetail: null,
    forkOf: null,
    messages: TOTAL,
    tokens: 5000,
    durationMs: 4000,
    toolCalls: 2,
    errors: 0,
    ...overrides,
  };
}

function compareAnswer(offset: number, limit: number): Compare {
  const pairs = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - offset)) }, (_, i) =>
    pair(offset + i + 1),
  );
  return {
    a: side('A'),
    b: side('B', {
      forkOf: { sessionId: 'A', atMessage: PREFIX },
      messages: TOTAL - 20,
      stopReason: 'text-mention',
      stopDetail: 'critic said DONE',
      errors: 1,
    }),
    commonPrefix: PREFIX,
    divergeAt: PREFIX + 1,
    ancestorId: 'A',
    totalPairs: TOTAL,
    offset,
    pairs,
    hasMore: offset + pairs.length < TOTAL,
    agents: [
      {
        name: 'writer',
        a: { messages: 130, tokens: 3000, timeMs: 2000, toolCalls: 2, errors: 0 },
        b: { messages: 120, tokens: 2500, timeMs: 1800, toolCalls: 2, errors: 1 },
        differs: true,
      },
      {
        name: 'critic',
        a: { messages: 129, tokens: 2000, timeMs: 1000, toolCalls: 0, errors: 0 },
        b: { messages: 129, tokens: 2000, timeMs: 1500, toolCalls: 0, errors: 0 },
        differs: false,
      },
    ],
    edges: [
      { from: 'user', to: 'writer', kind: 'message', a: 1, b: 1, differs: false },
      { from: 'writer', to: 'critic', kind: 'message', a: 130, b: 120, differs: true },
    ],
  };
}

function backend(
  compare?: () => ReturnType<Parameters<typeof createFakeBridge>[0]>,
  forkOf: Record<string, { sessionId: string; atMessage: number }> = {},
) {
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'sessions.get' && Object.keys(forkOf).length > 0) {
      const { id } = input as { id: string };
      const summary = {
        id,
        title: id,
        task: 't',
        fleetName: 'f',
        status: 'completed' as const,
        stopReason: null,
        createdAt: 0,
        updatedAt: 0,
        endedAt: 0,
        messageCount: TOTAL,
        tokens: 0,
        parentSessionId: forkOf[id]?.sessionId ?? null,
        forkSeq: null,
        tags: [],
        source: 'run',
        readOnly: false,
        durationMs: 0,
        forkOf: forkOf[id] ?? null,
      };
      return { ok: true, value: { summary, fleet: null } };
    }
    if (channel === 'branches.compare') {
      if (compare) return compare();
      const { offset = 0, limit = 50 } = input as { offset?: number; limit?: number };
      return { ok: true, value: compareAnswer(offset, limit) };
    }
    if (channel === 'branches.exportCompare')
      return {
        ok: true,
        value: { path: '/data/exports/compare-A-B.md', bytes: 2048, fileName: 'compare-A-B.md' },
      };
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return fake;
}

const offsets = (fake: ReturnType<typeof backend>) =>
  fake.calls
    .filter((call) => call.channel === 'branches.compare')
    .map((call) => (call.input as { offset: number }).offset);

/** happy-dom lays nothing out: the scroller gets a window's size, each drawn row a line's. */
function layOut(): void {
  const scroller = (element: Element) => element.getAttribute('data-testid') === 'compare-scroller';
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return scroller(this) ? 600 : 0;
  });
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
    return scroller(this) ? 900 : 0;
  });
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return scroller(this) ? 600 : this.classList.contains('row') ? 80 : 0;
  });
}

describe('the compare view', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    layOut();
  });
  afterEach(() => {
    document.body.innerHTML = '';
    vi.restoreAllMocks();
  });

  it('aligns the transcripts from their common prefix, marks where they part and the words that differ', async () => {
    const fake = backend();
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    await flushPromises();
    expect(view.get('[data-testid="compare-relation"]').text()).toBe(
      'B is a fork of A at message 120. Messages 1–120 are the same; they part at message 121.',
    );
    expect(view.get('[data-testid="compare-prefix"]').text()).toContain('Messages 1–120 are the same');
    expect(view.get('[data-testid="compare-diverge"]').text()).toContain('from message 121 on they differ');
    const pairs = view.findAll('[data-testid="compare-pair"]');
    expect(pairs.length).toBeGreaterThan(2);
    // Only the rows in view are drawn.
    expect(pairs.length).toBeLessThan(30);
    expect(pairs[0]!.attributes('data-position')).toBe('121');
    expect(pairs[0]!.attributes('data-state')).toBe('differs');
    const marks = pairs[0]!.findAll('[data-testid="diff-mark"]').map((mark) => [mark.classes(), mark.text()]);
    expect(marks).toEqual([
      [['a'], 'quick'],
      [['b'], 'slow'],
    ]);
    // The first page (for the summary) and the page where they part; nothing further down yet.
    expect(offsets(fake)).toEqual([0, 100]);

    await view.get('[data-testid="compare-prefix-toggle"]').trigger('click');
    await flushPromises();
    const unfolded = view.findAll('[data-testid="compare-pair"]');
    expect(unfolded[0]!.attributes('data-position')).toBe('1');
    expect(unfolded[0]!.attributes('data-state')).toBe('same');
  });

  it('asks first for the page where two branches part, from their fork point', async () => {
    const fake = backend(undefined, { B: { sessionId: 'A', atMessage: PREFIX } });
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    await flushPromises();
    expect(view.findAll('[data-testid="compare-pair"]')[0]!.attributes('data-position')).toBe('121');
    // One page: the summary came with it and the folded prefix needs none.
    expect(offsets(fake)).toEqual([100]);
  });

  it('puts per-agent figures and stop reasons side by side and highlights what differs', async () => {
    backend();
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    const stops = view.findAll('[data-testid="compare-stop"]').map((stop) => stop.text());
    // Stop reasons read as the session view says them, not as codes.
    expect(stops[0]).toMatch(/Stopped after \d+ messages|Stopped at its message limit/);
    expect(stops[1]).toContain('Stopped when an agent said the agreed closing words');
    expect(stops[1]).toContain('critic said DONE');
    const writer = view.get('[data-testid="compare-agent"][data-agent="writer"]');
    expect(writer.classes()).toContain('differs');
    const cells = writer.findAll('td:not(.sides)');
    expect(cells[0]!.classes()).toContain('changed');
    expect(cells[0]!.text()).toMatch(/130\s*120−10/);
    // Time always varies between runs: shown with its difference, never flagged.
    expect(cells[2]!.classes()).not.toContain('changed');
    expect(cells[3]!.classes()).not.toContain('changed');
    const critic = view.get('[data-testid="compare-agent"][data-agent="critic"]');
    expect(critic.classes()).not.toContain('differs');
    expect(view.get('[data-testid="compare-totals"]').text()).toContain('260');

    // Edges whose counts differ are listed with both counts, under the two graphs.
    const differing = view.findAll('[data-testid="compare-edge-differences"] [data-testid="compare-edge"]');
    expect(differing.map((edge) => `${edge.attributes('data-from')}>${edge.attributes('data-to')}`)).toEqual([
      'writer>critic',
    ]);
    expect(differing[0]!.text()).toMatch(/writer → critic\s*130\s*120/);
  });

  it('shows a fork right of its parent whichever was named first, with Swap off and saying why', async () => {
    backend(undefined, { A: { sessionId: 'B', atMessage: PREFIX } });
    window.location.hash = '#/compare/A/B';
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    await flushPromises();
    expect(view.get('[data-testid="compare-view"]').attributes('data-a')).toBe('B');
    expect(window.location.hash).toBe('#/compare/B/A');
    const swap = view.get('[data-testid="compare-swap"]');
    expect(swap.attributes('disabled')).toBeDefined();
    expect(view.get('[data-testid="compare-swap-hint"]').attributes('title')).toMatch(/right of its parent/);
  });

  it('swaps two sessions that are not fork and parent, in the address and on screen', async () => {
    backend();
    window.location.hash = '#/compare/A/B';
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    const swap = view.get('[data-testid="compare-swap"]');
    expect(swap.attributes('disabled')).toBeUndefined();
    await swap.trigger('click');
    expect(window.location.hash).toBe('#/compare/B/A');
  });

  it('exports Markdown and downloads it in the browser', async () => {
    const fake = backend();
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.getAttribute('href') ?? '');
    });
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    await view.get('[data-testid="compare-export-md"]').trigger('click');
    await flushPromises();
    expect(fake.calls.find((call) => call.channel === 'branches.exportCompare')?.input).toEqual({
      a: 'A',
      b: 'B',
      format: 'md',
    });
    expect(clicked).toEqual(['/exports/compare-A-B.md']);
  });

  it('says why when a session cannot be compared', async () => {
    backend(() => ({ ok: false, error: { code: 'not-found', message: 'No session with id "B".' } }));
    const view = mount(CompareView, { props: { a: 'A', b: 'B' }, attachTo: document.body });
    await flushPromises();
    expect(view.get('[data-testid="compare-error"]').text()).toContain('No session with id "B".');
    expect(view.text()).toContain('This comparison cannot be shown');
    expect(view.find('[data-testid="compare-transcript"]').exists()).toBe(false);
  });
});

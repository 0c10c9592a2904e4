import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output, Result } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { applyStatsEvent, edgeKey, emptyStats, type GraphStats } from '../../../src-renderer/session/stats';
import { dispatchChecked } from '../../helpers/checked-dispatch';
import { makeTempDir } from '../../helpers/temp-dir';

const trio: FleetInput = {
  version: 1,
  name: 'Trio',
  agents: [
    { name: 'a', type: 'scripted', script: [{ content: 'one' }, { content: 'four' }] },
    { name: 'b', type: 'scripted', script: [{ content: 'two' }, { content: 'five' }] },
    { name: 'c', type: 'scripted', script: [{ content: 'three' }, { content: 'DONE' }] },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'text-mention', text: 'DONE' },
};

/** The totals the renderer folds from events, in the shape `sessions.edges` answers. */
/**
 * The counts the store answers: per agent, and message and handoff edges. Turn edges (who took the
 * floor after a broadcast) and routing edges depend on the order of events, so the renderer adds
 * them when the log arrives; they are left out of the comparison.
 */
function folded(stats: GraphStats) {
  const agents = Object.entries(stats.agents).map(([name, agent]) => ({ name, ...agent }));
  const edges = Object.values(stats.edges)
    .filter((edge) => edge.kind === 'message' || edge.kind === 'handoff')
    .map((edge) => ({ ...edge }));
  return {
    agents: agents.sort((x, y) => x.name.localeCompare(y.name)),
    edges: edges.sort((x, y) => edgeKey(x.kind, x.from, x.to).localeCompare(edgeKey(y.kind, y.from, y.to))),
  };
}

describe('sessions.edges', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;

  async function dispatch<C extends ChannelName>(channel: C, input: Input<C>): Promise<Result<Output<C>>> {
    return (await dispatchChecked(app.dispatcher, channel, input, { surface: 'cli' })) as Result<Output<C>>;
  }
  async function call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> {
    const result = await dispatch(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  }

  beforeEach(() => {
    temp = makeTempDir();
    app = createApp({ dataDir: temp.dir, surface: 'cli', pingIntervalMs: 0 });
  });
  afterEach(async () => {
    await app.close();
    temp.remove();
  });

  it('gives the same counts the renderer folds from the event log, at the end and at any seq', async () => {
    const { sessionId } = await call('runs.start', { source: { fleet: trio }, task: 'Count to five' });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 10_000 })
      .toBe('completed');
    const { events } = await call('sessions.events', { id: sessionId, afterSeq: 0 });
    const messageSeqs = events
      .filter((event) => event.kind === 'message.completed')
      .map((event) => event.seq);
    expect(messageSeqs.length).toBeGreaterThan(3);

    for (const seq of [undefined, 0, messageSeqs[0]!, messageSeqs[2]!, messageSeqs[2]! + 1]) {
      const stats = emptyStats();
      for (const event of events) if (seq === undefined || event.seq <= seq) applyStatsEvent(stats, event);
      const answer = await call(
        'sessions.edges',
        seq === undefined ? { id: sessionId } : { id: sessionId, seq },
      );
      expect(
        folded({
          agents: Object.fromEntries(answer.agents.map(({ name, ...agent }) => [name, agent])),
          edges: Object.fromEntries(
            answer.edges.map((edge) => [edgeKey(edge.kind, edge.from, edge.to), edge]),
          ),
          lastSpeaker: null,
          lastBroadcast: null,
          floors: {},
        }),
      ).toEqual(folded(stats));
    }
  });

  it('refuses an unknown session and bad input, changing nothing', async () => {
    const missing = await dispatch('sessions.edges', { id: 'no-such-session' });
    expect(missing.ok).toBe(false);
    const bad = await app.dispatcher.dispatch('sessions.edges', { id: 'x', seq: -1 }, { surface: 'cli' });
    expect(bad.ok).toBe(false);
  });
});

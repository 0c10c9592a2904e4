import { describe, expect, it } from 'vitest';
import type { Fleet } from '@shared/domain';
import { foldFrame } from '../../../src-renderer/session/frame';
import { agentsOfFleet, mapGraph } from '../../../src-renderer/session/graph-mapper';
import { awaitsEdges } from '../../../src-renderer/graph/graph-sync';
import { EventLog } from '../session-fixture';

function agent(name: string): Fleet['agents'][number] {
  return {
    name,
    type: 'scripted',
    description: '',
    role: `${name} role`,
    systemPrompt: '',
    tools: [],
    acceptedKinds: ['text'],
    receiveOwnBroadcasts: false,
  };
}

function fleet(team: Fleet['team']): Fleet {
  return {
    version: 1,
    name: 'test',
    description: '',
    agents: [agent('triage'), agent('billing'), agent('refunds')],
    team,
    layout: {},
  };
}

/** The graph at the first draw (no edges known yet) and after one message. */
function graphs(team: Fleet['team']) {
  const log = new EventLog().start(fleet(team));
  const before = mapGraph(agentsOfFleet(fleet(team)), foldFrame(log.events));
  log.say('m1', 'triage', 'billing', ['over to you']);
  const after = mapGraph(agentsOfFleet(fleet(team)), foldFrame(log.events));
  return { before, after };
}

describe('when the measured graph layout may be shown', () => {
  it('shows a layout made from the team alone at once, however long the log', () => {
    const teams: Fleet['team'][] = [
      { pattern: 'round-robin' },
      { pattern: 'sequential', order: ['triage', 'billing', 'refunds'] },
      { pattern: 'parallel', workers: ['billing', 'refunds'], aggregator: 'triage' },
    ];
    for (const team of teams) {
      const { before } = graphs(team);
      expect(before.edges).toEqual([]);
      expect(awaitsEdges(before), team.pattern).toBe(false);
    }
    expect(awaitsEdges(undefined)).toBe(false);
  });

  it('lets a swarm, placed by the edges seen, wait until it has one', () => {
    const { before, after } = graphs({
      pattern: 'swarm',
      start: 'triage',
      handoffs: { triage: ['billing'] },
    });
    expect(awaitsEdges(before)).toBe(true);
    expect(after.edges.length).toBeGreaterThan(0);
    expect(awaitsEdges(after)).toBe(false);
  });
});

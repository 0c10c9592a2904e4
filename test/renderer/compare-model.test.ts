import { describe, expect, it } from 'vitest';
import type { CompareSide } from '@shared/contract';
import type { Fleet } from '@shared/domain';
import { compareRows, pageOf, sideSegments } from '../../src-renderer/compare/compare-rows';
import { loadSideGraph, type SessionDetail } from '../../src-renderer/compare/compare-graphs';
import { foldFrame } from '../../src-renderer/session/frame';
import { agentsOfFleet, mapGraph } from '../../src-renderer/session/graph-mapper';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, sessionListItem, threeAgents } from './session-fixture';
import { relationOf } from '../../src-renderer/compare/compare-text';
import { compareFromHash, compareHash } from '../../src-renderer/compare/compare-route';
import type { CompareSummary } from '../../src-renderer/compare/compare-store';

/** Every row of a model, by walking `at`. */
function walk(shape: Parameters<typeof compareRows>[0], open: boolean) {
  const rows = compareRows(shape, open);
  return Array.from({ length: rows.length }, (_, index) => rows.at(index));
}

describe('aligned rows', () => {
  it('fold a long common prefix into one row and mark where the sessions part', () => {
    const shape = { commonPrefix: 5, divergeAt: 6, totalPairs: 8 };
    expect(walk(shape, false)).toEqual([
      { kind: 'prefix', count: 5 },
      { kind: 'diverge', position: 6 },
      { kind: 'pair', position: 6 },
      { kind: 'pair', position: 7 },
      { kind: 'pair', position: 8 },
    ]);
    const open = walk(shape, true);
    expect(open).toHaveLength(9);
    expect(open.slice(4, 7)).toEqual([
      { kind: 'pair', position: 5 },
      { kind: 'diverge', position: 6 },
      { kind: 'pair', position: 6 },
    ]);
    expect(compareRows(shape, false).divergeIndex).toBe(1);
    expect(compareRows(shape, true).divergeIndex).toBe(5);
  });

  it('keep a short prefix unfolded, and have no marker when the transcripts are the same', () => {
    expect(walk({ commonPrefix: 2, divergeAt: 3, totalPairs: 3 }, false)).toEqual([
      { kind: 'pair', position: 1 },
      { kind: 'pair', position: 2 },
      { kind: 'diverge', position: 3 },
      { kind: 'pair', position: 3 },
    ]);
    expect(walk({ commonPrefix: 6, divergeAt: null, totalPairs: 6 }, false)).toEqual([
      { kind: 'prefix', count: 6 },
    ]);
    expect(compareRows({ commonPrefix: 6, divergeAt: null, totalPairs: 6 }, false).divergeIndex).toBe(-1);
    expect(walk({ commonPrefix: 0, divergeAt: 1, totalPairs: 1 }, false)).toEqual([
      { kind: 'diverge', position: 1 },
      { kind: 'pair', position: 1 },
    ]);
    expect(walk({ commonPrefix: 0, divergeAt: null, totalPairs: 0 }, false)).toEqual([]);
  });

  it('find the row of any pair by arithmetic, for 100k pairs as for 10', () => {
    for (const [shape, open] of [
      [{ commonPrefix: 90_000, divergeAt: 90_001, totalPairs: 100_000 }, false],
      [{ commonPrefix: 90_000, divergeAt: 90_001, totalPairs: 100_000 }, true],
      [{ commonPrefix: 3, divergeAt: 4, totalPairs: 10 }, false],
    ] as const) {
      const rows = compareRows(shape, open);
      for (const position of [shape.commonPrefix + 1, shape.commonPrefix + 2, shape.totalPairs]) {
        expect(rows.at(rows.indexOfPosition(position))).toEqual({ kind: 'pair', position });
      }
    }
    const folded = compareRows({ commonPrefix: 90_000, divergeAt: 90_001, totalPairs: 100_000 }, false);
    expect(folded.length).toBe(1 + 1 + 10_000);
    expect(folded.indexOfPosition(12)).toBe(0);
  });

  it('show each side its own words of a diff, marked', () => {
    const segments = [
      { text: 'The ', side: 'both' as const },
      { text: 'quick', side: 'a' as const },
      { text: 'slow', side: 'b' as const },
      { text: ' fox', side: 'both' as const },
    ];
    expect(sideSegments(segments, 'a')).toEqual([
      { text: 'The ', changed: false },
      { text: 'quick', changed: true },
      { text: ' fox', changed: false },
    ]);
    expect(
      sideSegments(segments, 'b')
        .map((part) => part.text)
        .join(''),
    ).toBe('The slow fox');
    expect([pageOf(1, 100), pageOf(100, 100), pageOf(101, 100)]).toEqual([0, 0, 1]);
  });
});

function side(id: string, forkOf: CompareSide['forkOf'] = null): CompareSide {
  return {
    sessionId: id,
    title: id,
    status: 'completed',
    stopReason: 'max messages',
    stopDetail: null,
    forkOf,
    messages: 4,
    tokens: 10,
    durationMs: 100,
    toolCalls: 0,
    errors: 0,
  };
}

describe('the comparison summary line', () => {
  const base: CompareSummary = {
    a: side('A'),
    b: side('B', { sessionId: 'A', atMessage: 3 }),
    commonPrefix: 2,
    divergeAt: 3,
    ancestorId: 'A',
    totalPairs: 6,
    agents: [],
    edges: [],
  };
  it('says how the sessions relate and where they part', () => {
    expect(relationOf(base)).toBe(
      'B is a fork of A at message 3. Messages 1–2 are the same; they part at message 3.',
    );
    expect(relationOf({ ...base, a: base.b, b: base.a, commonPrefix: 1, divergeAt: 2 })).toBe(
      'A is a fork of B at message 3. Message 1 is the same; they part at message 2.',
    );
    expect(relationOf({ ...base, b: side('C', { sessionId: 'X', atMessage: 2 }), ancestorId: 'X' })).toMatch(
      /^Two branches of one family\./,
    );
    expect(relationOf({ ...base, b: side('C'), ancestorId: null, commonPrefix: 0, divergeAt: 1 })).toBe(
      'These two sessions share no history: their messages are shown side by side, without a word-by-word diff. They differ from the first message.',
    );
    expect(relationOf({ ...base, divergeAt: null, commonPrefix: 6 })).toMatch(/the same \(6 messages\)\.$/);
  });
});

describe('the compare graph', () => {
  const trio: Fleet = { ...threeAgents, name: 'debate' };
  const log = new EventLog('deb').start(trio);
  log.say('t', 'user', '*', ['Is remote work better?'], { kind: 'task' });
  log.say('m1', 'planner', '*', ['Yes.']);
  log.say('m2', 'writer', '*', ['No.']);
  log.say('m3', 'critic', '*', ['Again.']);

  function detail(id: string): SessionDetail {
    return { summary: sessionListItem(id, { fleetName: 'debate', messageCount: 4 }), fleet: trio };
  }

  it("draws a session of broadcasts with the session view's edges and colours, from its whole log", async () => {
    const fake = createFakeBridge((channel) =>
      channel === 'sessions.events'
        ? { ok: true, value: { events: log.events, lastSeq: log.events.at(-1)!.seq } }
        : { ok: false, error: { code: 'unknown-channel', message: channel } },
    );
    const side = await loadSideGraph(fake.bridge, detail('deb'));
    if (typeof side === 'string') throw new Error(side);
    expect(side.graph).toEqual(mapGraph(agentsOfFleet(trio), foldFrame(log.events)));
    expect(side.graph.edges.map((edge) => edge.id)).toEqual([
      'message:planner->writer',
      'message:writer->critic',
    ]);
    expect(side).toMatchObject({ fleetName: 'debate', sessionId: 'deb', live: false });
  });

  it('says why when the log cannot be read', async () => {
    const fake = createFakeBridge(() => ({
      ok: false,
      error: { code: 'not-found', message: 'No session.' },
    }));
    expect(await loadSideGraph(fake.bridge, detail('gone'))).toBe('No session.');
  });
});

describe('the compare route', () => {
  it('round-trips ids through the hash and refuses other pages', () => {
    expect(compareFromHash(compareHash('a b/c', 'd%e'))).toEqual({ a: 'a b/c', b: 'd%e' });
    expect(compareFromHash('#/sessions/x')).toBeNull();
    expect(compareFromHash('#/compare/x')).toBeNull();
    expect(compareFromHash('#/compare/%E0%A4%A/b')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { MemorySink, RunManager } from '../../../src-main/orchestrator';
import { fleet, scripted } from '../../helpers/fleet-builders';

const chatter = fleet({
  agents: [scripted('a', [{ content: 'tick tock tick', chunkSize: 2, delayMs: 5 }], { loop: true })],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 100 },
});

describe('RunManager', () => {
  it('starts runs with shared defaults, finds them by id and relays all their events', async () => {
    const sink = new MemorySink();
    const manager = new RunManager({ sink, env: {} });
    const seen: RunEvent[] = [];
    manager.onDidEvent((event) => seen.push(event));
    const first = manager.start({ fleet: chatter, task: 'one' });
    const second = manager.start({ fleet: chatter, task: 'two', startPaused: true });
    expect(manager.get(first.sessionId)).toBe(first);
    expect(manager.list()).toHaveLength(2);
    // Let the first run get going (it streams for seconds), then stop both mid-way.
    const firstStreams = () =>
      seen.some((event) => event.sessionId === first.sessionId && event.kind === 'message.delta');
    await expect.poll(firstStreams, { timeout: 5_000 }).toBe(true);
    await manager.stopAll();
    expect((await first.done).stopReason).toBe('cancelled');
    expect((await second.done).stopReason).toBe('cancelled');
    const sessions = new Set(seen.map((event) => event.sessionId));
    expect(sessions).toEqual(new Set([first.sessionId, second.sessionId]));
    expect(sink.events).toHaveLength(seen.length);
  });

  it('rejects a fleet the runtime cannot run, naming the field', () => {
    const manager = new RunManager({ sink: new MemorySink(), env: {} });
    const broken = fleet({ agents: [{ name: 'gpt', type: 'llm' }], team: { pattern: 'sequential' } });
    expect(() => manager.start({ fleet: broken, task: 'x' })).toThrow(/agents\[0\]\.provider/);
  });
});

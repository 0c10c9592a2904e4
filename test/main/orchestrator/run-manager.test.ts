import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { FleetInvalidError, type RunEvent } from '@shared/domain';
import { MemorySink, RunManager } from '../../../src-main/orchestrator';
import { checked, fleet, scripted } from '../../helpers/fleet-builders';

const chatter = checked(
  fleet({
    agents: [scripted('a', [{ content: 'tick tock tick', chunkSize: 2, delayMs: 5 }], { loop: true })],
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 100 },
  }),
).fleet;

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

  it('takes only checked fleets: the check refuses one the runtime cannot run, naming the field', () => {
    const broken = fleet({ agents: [{ name: 'gpt', type: 'llm' }], team: { pattern: 'sequential' } });
    expect(() => checked(broken)).toThrow(FleetInvalidError);
    expect(() => checked(broken)).toThrow(/agents\[0\]\.provider/);
  });
});

describe('RunManager releases finished runs', () => {
  const quick = checked(fleet({ agents: [scripted('a', ['hello'])], team: { pattern: 'sequential' } })).fleet;

  it('keeps only the most recently finished runs; older ones are forgotten and cannot continue', async () => {
    const manager = new RunManager({ sink: new MemorySink(), env: {} }, { keepFinished: 2 });
    const handles = [];
    for (const task of ['one', 'two', 'three', 'four']) {
      const handle = manager.start({ fleet: quick, task });
      await handle.done;
      handles.push(handle);
    }
    const ids = handles.map((handle) => handle.sessionId);
    expect(ids.map((id) => manager.get(id) !== undefined)).toEqual([false, false, true, true]);
    expect(manager.list().map((handle) => handle.sessionId)).toEqual(ids.slice(2));
    await expect(handles[0]!.continueWith('more')).rejects.toThrow(/released/);

    // Continuing a kept run makes it the most recently finished one when it ends again.
    const seen: RunEvent[] = [];
    manager.onDidEvent((event) => seen.push(event));
    await handles[2]!.continueWith('again');
    expect(seen.some((event) => event.kind === 'session.continued')).toBe(true);
    await manager.start({ fleet: quick, task: 'five' }).done;
    expect(manager.get(ids[2]!)).toBe(handles[2]);
    expect(manager.get(ids[3]!)).toBeUndefined();
  });

  it('never releases a run that is still going', async () => {
    const manager = new RunManager({ sink: new MemorySink(), env: {} }, { keepFinished: 0 });
    const long = manager.start({ fleet: chatter, task: 'long', startPaused: true });
    await manager.start({ fleet: quick, task: 'short' }).done;
    expect(manager.list()).toEqual([long]);
    long.stop();
    await long.done;
    expect(manager.list()).toEqual([]);
  });

  it('a finished run lets go of the signal it was started with', async () => {
    const shutdown = new AbortController();
    const manager = new RunManager({ sink: new MemorySink(), env: {}, signal: shutdown.signal });
    for (let index = 0; index < 3; index += 1) await manager.start({ fleet: quick, task: 'go' }).done;
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('a released run can be garbage collected', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const manager = new RunManager({ sink: new MemorySink(), env: {} }, { keepFinished: 0 });
    const released = await (async () => {
      const handle = manager.start({ fleet: quick, task: 'go' });
      await handle.done;
      return new WeakRef(handle);
    })();
    // Let the finished run's pending callbacks settle before collecting.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(released.deref()).toBeUndefined();
  });
});

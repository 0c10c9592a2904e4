import { describe, expect, it } from 'vitest';
import { streamingPace } from '../../../src-main/orchestrator/agents/scripted-agent';
import { fleet, ofKind, run, scripted, transcript } from '../../helpers/fleet-builders';

describe('scripted replies at a typing pace', () => {
  it('turns characters per second into small chunks about 20 times a second', () => {
    expect(streamingPace({}, 80)).toEqual({ size: 4, delayMs: 50 });
    expect(streamingPace({}, 10)).toEqual({ size: 1, delayMs: 100 });
    expect(streamingPace({ chunkSize: 8 }, 80)).toEqual({ size: 8, delayMs: 100 });
    // A reply that sets its own pause wins; no pace streams at once.
    expect(streamingPace({ chunkSize: 6, delayMs: 15 }, 80)).toEqual({ size: 6, delayMs: 15 });
    expect(streamingPace({}, undefined)).toEqual({ size: 12, delayMs: 0 });
  });

  it('streams a paced reply in those chunks, whole and in order', async () => {
    const content = 'Forty characters of a scripted reply ok.';
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('typist', [content], { charsPerSecond: 400 })],
        team: { pattern: 'sequential' },
      }),
      task: 'type',
    });
    await handle.done;
    const deltas = ofKind(events, 'message.delta').map((event) => event.payload.text);
    expect(deltas).toHaveLength(content.length / 20);
    expect(deltas.every((text) => text.length === 20)).toBe(true);
    expect(deltas.join('')).toBe(content);
  });

  it('refuses a pace that is not a positive number of characters per second', () => {
    expect(() =>
      fleet({ agents: [scripted('typist', ['x'], { charsPerSecond: 0 })], team: { pattern: 'sequential' } }),
    ).toThrow();
    expect(() =>
      fleet({ agents: [scripted('typist', ['x'], { charsPerSecond: -5 })], team: { pattern: 'sequential' } }),
    ).toThrow();
  });
});

describe('a scripted agent that runs out of replies', () => {
  it('finishes its part quietly, and the run ends with a sentence once nobody has anything left', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('ann', ['Ann one', 'Ann two']), scripted('ben', ['Ben one'])],
        team: { pattern: 'round-robin' },
      }),
      task: 'Talk',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'out-of-replies' });
    expect(summary.detail).toBe('Every agent had said all its scripted replies.');
    expect(transcript(events)).toEqual([
      'user>*: Talk',
      'ann>*: Ann one',
      'ben>*: Ben one',
      'ann>*: Ann two',
    ]);
    expect(ofKind(events, 'error')).toEqual([]);
    // Nothing that looks like a reply: no stop messages, no empty turns shown as thinking.
    const statuses = ofKind(events, 'agent.status').filter((event) => event.agent === 'ben');
    expect(statuses.map((event) => event.payload.status)).toEqual(['thinking', 'streaming', 'idle']);
    const stopped = ofKind(events, 'session.stopped')[0];
    expect(stopped?.payload).toMatchObject({ status: 'completed', stopReason: 'out-of-replies' });
  });

  it('does not spin when a selector keeps picking an agent that has nothing left', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('bot', ['Only reply']), scripted('other', ['Never asked'])],
        team: { pattern: 'selector', rules: [{ candidates: ['bot'] }] },
      }),
      task: 'Go',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'out-of-replies' });
    expect(summary.detail).toBe('bot had nothing more to say, and the others were not asked.');
    expect(transcript(events)).toEqual(['user>*: Go', 'bot>*: Only reply']);
  });

  it('leaves a looping agent talking until the fleet’s own condition stops it', async () => {
    const { handle } = run({
      fleet: fleet({
        agents: [scripted('once', ['Just once']), scripted('loop', ['Again'], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 6 },
      }),
      task: 'Go',
    });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'max-messages' });
  });

  it('ends a pipeline whose agents have no script at all without an error', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [{ name: 'empty', type: 'llm', provider: { id: 'scripted', model: 'scripted' } }],
        team: { pattern: 'sequential' },
      }),
      task: 'Go',
    });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(ofKind(events, 'error')).toEqual([]);
    expect(transcript(events)).toEqual(['user>empty: Go']);
  });
});

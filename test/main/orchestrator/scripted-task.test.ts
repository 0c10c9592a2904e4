import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fleetSchema } from '@shared/domain';
import { fleet, run, scripted, transcript } from '../../helpers/fleet-builders';

describe('scripted replies that follow the task', () => {
  it('fill {{task}} with the task, first line only and shortened', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('ann', ['On "{{task}}": yes.']), scripted('ben', ['{{task}}? No. ({{task}})'])],
        team: { pattern: 'round-robin' },
      }),
      task: 'Should we adopt a four-day week?\nMore detail the reply should not quote.',
    });
    await handle.done;
    expect(transcript(events).slice(1)).toEqual([
      'ann>*: On "Should we adopt a four-day week?": yes.',
      'ben>*: Should we adopt a four-day week?? No. (Should we adopt a four-day week?)',
    ]);

    const long = run({
      fleet: fleet({ agents: [scripted('ann', ['"{{task}}"'])], team: { pattern: 'sequential' } }),
      task: 'x'.repeat(500),
    });
    await long.handle.done;
    const reply = transcript(long.events)[1] ?? '';
    expect(reply).toBe(`ann>user: "${'x'.repeat(159)}…"`);
  });

  it('the Debate demo argues about the task it was given, not a fixed topic', async () => {
    const path = fileURLToPath(new URL('../../../resources/fleets/scripted/debate.json', import.meta.url));
    const debate = fleetSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    // No pauses between chunks: the test reads the words, not the pace.
    for (const agent of debate.agents) for (const reply of agent.script ?? []) reply.delayMs = 0;
    const { handle, events } = run({ fleet: debate, task: 'Write a parser for ISO 8601 dates' });
    await handle.done;
    const replies = transcript(events).slice(1);
    expect(replies.join('\n')).not.toMatch(/remote work/i);
    expect(
      replies.filter((line) => line.includes('"Write a parser for ISO 8601 dates"')).length,
    ).toBeGreaterThanOrEqual(3);
    expect(replies.join('\n')).not.toContain('{{task}}');
  });
});

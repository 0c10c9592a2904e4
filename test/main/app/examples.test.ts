import { describe, expect, it } from 'vitest';
import { contractApp } from '../../helpers/contract-app';

describe('the shipped example fleets, through the contract', () => {
  const { call } = contractApp('suite');

  it('lists every example, keyless ones first', async () => {
    const examples = (await call('fleets.list', {})).filter((fleet) => fleet.example);
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const patterns = new Set(examples.map((fleet) => fleet.pattern));
    for (const pattern of ['round-robin', 'sequential', 'swarm', 'parallel'])
      expect(patterns).toContain(pattern);
    const firstKeyed = examples.findIndex((fleet) => !fleet.scripted);
    expect(examples.slice(firstKeyed).every((fleet) => !fleet.scripted)).toBe(true);
    expect(examples.filter((fleet) => fleet.scripted).length).toBeGreaterThanOrEqual(4);
  });

  it('runs every keyless example to a termination condition', async () => {
    const scripted = (await call('fleets.list', {})).filter((fleet) => fleet.example && fleet.scripted);
    const ids = await Promise.all(
      scripted.map(
        async (fleet) =>
          (await call('runs.start', { source: { example: fleet.id }, task: 'Show me.' })).sessionId,
      ),
    );
    for (const id of ids) {
      await expect
        .poll(async () => (await call('sessions.get', { id })).summary.status, { timeout: 30_000 })
        .toBe('completed');
      const { summary } = await call('sessions.get', { id });
      expect(summary.messageCount).toBeGreaterThan(2);
      expect(summary.stopReason).not.toBe('error');
    }
  }, 60_000);

  it('the file scout example calls the MCP filesystem server from npm, and the calls are stored', async () => {
    const scout = (await call('fleets.list', {})).find(
      (fleet) => fleet.example && fleet.name.startsWith('File scout'),
    );
    expect(scout?.scripted).toBe(true);
    const { sessionId } = await call('runs.start', {
      source: { example: scout?.id ?? '' },
      task: 'Look around.',
    });
    await expect
      .poll(async () => (await call('sessions.get', { id: sessionId })).summary.status, { timeout: 30_000 })
      .toBe('completed');
    const { events } = await call('sessions.events', { id: sessionId, afterSeq: 0 });
    const executed = events.flatMap((event) => (event.kind === 'tool.executed' ? [event.payload] : []));
    expect(executed.map((result) => [result.server, result.tool, result.isError])).toEqual([
      ['files', 'list_allowed_directories', false],
      ['files', 'list_directory', false],
    ]);
    expect(executed[1]?.result).toContain('package.json');
  }, 60_000);
});

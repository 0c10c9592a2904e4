import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractApp } from '../../helpers/contract-app';
import { referenceServer } from '../../helpers/mcp-servers';
import { call, toolFleet } from './mcp-run-helpers';

const SECRET = 'ghp_mcpSecret0123456789abcdef';
const MARKER = '[masked mcpServers.everything.env.API_TOKEN]';

describe("an MCP server's env values are secrets", () => {
  const opened = contractApp('suite');
  const dispatch = opened.call;

  it('the renderer sees markers, a save keeps the secret, and runs, logs and exports never hold it', async () => {
    const fleet = toolFleet(
      { everything: referenceServer('everything', ['stdio'], { env: { API_TOKEN: SECRET } }) },
      ['everything/get-env'],
      [call('everything/get-env', {}, 'Here is my environment.')],
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const shown = await dispatch('fleets.get', { id });
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(JSON.stringify(shown)).toContain(MARKER);
    // Saving what the renderer was shown keeps the real value.
    await dispatch('fleets.save', { id, fleet: { ...shown.fleet, description: 'edited' } });
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: id }, task: 'Show your env' });
    await expect
      .poll(async () => (await dispatch('sessions.get', { id: sessionId })).summary.status, {
        timeout: 30_000,
      })
      .toBe('completed');
    const { events } = await dispatch('sessions.events', { id: sessionId, afterSeq: 0 });
    const env = events.find((event) => event.kind === 'tool.executed');
    // The server got the real value (it echoes its environment), and the record has the marker.
    expect(JSON.stringify(env)).toContain(MARKER);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const exported = await dispatch('sessions.export', { id: sessionId, format: 'json' });
    expect(readFileSync(exported.path, 'utf8')).not.toContain(SECRET);
    for (const file of readdirSync(opened.dataDir).filter((name) => name.endsWith('.log')))
      expect(readFileSync(join(opened.dataDir, file), 'utf8')).not.toContain(SECRET);
  }, 60_000);
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelName, Input } from '@shared/contract';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { callChecked, dispatchChecked } from '../../helpers/checked-dispatch';
import { misbehavingServer, referenceServer, startEverythingHttp } from '../../helpers/mcp-servers';
import { makeTempDir } from '../../helpers/temp-dir';
import { call, toolFleet } from './mcp-run-helpers';

const SECRET = 'sk-testToolServerSecret-0123456789';

describe('testing an MCP server from the builder (fleets.testToolServer)', () => {
  const temp = makeTempDir();
  let app: FleetscopeApp;
  const context = { surface: 'browser' } as const;
  const raw = (channel: ChannelName, input: unknown) =>
    dispatchChecked(app.dispatcher, channel, input, context);
  const dispatch = <C extends ChannelName>(channel: C, input: Input<C>) =>
    callChecked(app.dispatcher, channel, input, context);
  beforeAll(() => {
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
    });
  });
  afterAll(async () => {
    await app.close();
    temp.remove();
  });

  it('lists the filesystem server’s tools with their descriptions and input schemas', async () => {
    const folder = join(temp.dir, 'notes');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'todo.md'), 'buy milk\n');
    const { tools } = await dispatch('fleets.testToolServer', {
      name: 'files',
      server: referenceServer('filesystem', [folder]) as Record<string, unknown>,
    });
    const read = tools.find((tool) => tool.name === 'read_text_file' || tool.name === 'read_file');
    expect(read?.description).toMatch(/read/i);
    expect(read?.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
  }, 60_000);

  it('reaches a server over Streamable HTTP', async () => {
    const http = await startEverythingHttp();
    try {
      const { tools } = await dispatch('fleets.testToolServer', {
        name: 'everything',
        server: { url: http.url },
      });
      expect(tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await http.stop();
    }
  }, 60_000);

  it('a server that does not start is a clear error that never shows its secrets', async () => {
    const server = misbehavingServer({ FLEETSCOPE_MCP_FAIL_START: '1', API_TOKEN: SECRET });
    const result = await raw('fleets.testToolServer', {
      name: 'bad',
      server: server as Record<string, unknown>,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(JSON.stringify(result)).toContain('did not start');
    expect(JSON.stringify(result)).toContain(`API_TOKEN: ${SECRET.length} characters`);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  }, 60_000);

  it('takes the saved fleet’s values for the markers the builder was shown', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({ FLEETSCOPE_MCP_FAIL_START: '1', API_TOKEN: SECRET }) },
      ['bad/echo'],
      [call('bad/echo', { text: 'hi' })],
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const shown = (await dispatch('fleets.get', { id })).fleet.mcpServers?.bad as Record<string, unknown>;
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    const result = await raw('fleets.testToolServer', { fleetId: id, name: 'bad', server: shown });
    // The server got the real value (its length), not the marker.
    expect(JSON.stringify(result)).toContain(`API_TOKEN: ${SECRET.length} characters`);
  }, 60_000);

  it('a server that is not one is refused naming the field', async () => {
    const result = await raw('fleets.testToolServer', { name: 'odd', server: { command: '' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(JSON.stringify(result)).toContain('odd');
  });
});

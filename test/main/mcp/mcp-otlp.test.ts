import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSession } from '../../../src-main/interop/export';
import { importFile } from '../../../src-main/interop/import';
import { MemorySessions } from '../../helpers/memory-sessions';
import { misbehavingServer } from '../../helpers/mcp-servers';
import { call, runWithServers, toolFleet } from './mcp-run-helpers';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-mcp-otlp-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Span {
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
}

describe('MCP tool calls in OTLP', () => {
  it('the export names the tool span by server and tool; the import names the result by its server', async () => {
    const { handle, events } = runWithServers({
      fleet: toolFleet(
        { bad: misbehavingServer() },
        ['bad/echo'],
        [call('bad/echo', { text: 'hi' }, 'done')],
      ),
      task: 'Echo',
    });
    expect((await handle.done).status).toBe('completed');
    const store = new MemorySessions();
    const id = store.addSession({ title: 'MCP' }, events);
    const path = join(dir, 'mcp.otlp.json');
    await exportSession(store, id, 'otlp', path);
    const exported = JSON.parse(readFileSync(path, 'utf8')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }>;
    };
    const spans = exported.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) => scope.spans),
    );
    const tool = spans.find((span) => span.name.startsWith('execute_tool'));
    expect(tool?.name).toBe('execute_tool bad/echo');
    const attribute = (key: string) => tool?.attributes.find((entry) => entry.key === key)?.value.stringValue;
    expect(attribute('gen_ai.tool.name')).toBe('echo');
    expect(attribute('mcp.server.name')).toBe('bad');

    const imported = await importFile(path, store);
    const copy = store.sessions.get(imported.sessionId);
    // The call comes back from the model span as the model named it; its result by server and tool.
    const executed = copy?.events.find((event) => event.kind === 'tool.executed');
    expect(executed?.payload).toMatchObject({ name: 'bad/echo', result: 'echo: hi' });
  });
});

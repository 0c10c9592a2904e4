import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ToolServerTool } from '@shared/contract';
import type { McpServerSpec } from '@shared/domain';
import { useBridge } from '../bridge';

/** The outcome of a server's last Test: its tools, or why it did not start. */
export type ServerTest =
  | { state: 'testing' }
  | { state: 'ok'; tools: ToolServerTool[]; durationMs: number }
  | { state: 'failed'; error: string };

/**
 * What the builder learnt by testing MCP servers (`fleets.testToolServer`), by fleet and server
 * name; the agent inspector offers the tools listed here for ticking. A test of a changed server
 * replaces the old outcome.
 */
export const useToolServersStore = defineStore('tool-servers', () => {
  const bridge = useBridge();
  const tests = ref<Record<string, ServerTest>>({});
  const key = (fleetId: string | null, server: string) => `${fleetId ?? ''}\u0000${server}`;

  function outcome(fleetId: string | null, server: string): ServerTest | null {
    return tests.value[key(fleetId, server)] ?? null;
  }

  /** The tools a server listed when last tested, or null when it was not (successfully) tested. */
  function toolsOf(fleetId: string | null, server: string): ToolServerTool[] | null {
    const test = outcome(fleetId, server);
    return test?.state === 'ok' ? test.tools : null;
  }

  async function test(fleetId: string | null, server: string, spec: McpServerSpec): Promise<ServerTest> {
    const at = key(fleetId, server);
    tests.value[at] = { state: 'testing' };
    const result = await bridge.call('fleets.testToolServer', {
      ...(fleetId !== null ? { fleetId } : {}),
      name: server,
      server: spec as unknown as Record<string, unknown>,
    });
    const next: ServerTest = result.ok
      ? { state: 'ok', tools: result.value.tools, durationMs: result.value.durationMs }
      : { state: 'failed', error: result.error.message };
    tests.value[at] = next;
    return next;
  }

  function forget(fleetId: string | null, server: string): void {
    delete tests.value[key(fleetId, server)];
  }

  return { tests, outcome, toolsOf, test, forget };
});

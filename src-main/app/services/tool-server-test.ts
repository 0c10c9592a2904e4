import type { ToolServerTool } from '@shared/contract';
import { mcpSecrets, mcpServerSchema, restoreFleetSecrets, type McpServerSpec } from '@shared/domain';
import { SecretMasker } from '../../orchestrator';
import { McpServerConnection } from '../../orchestrator/tools';
import { AppError } from '../handlers/errors';
import type { FleetCatalog } from './fleet-catalog';

/** Milliseconds a tested server has to start and list its tools, whatever its own timeout. */
const TEST_TIMEOUT_MS = 30_000;

export interface ToolServerTestInput {
  fleetId?: string | undefined;
  name: string;
  server: Record<string, unknown>;
}

/**
 * Starts one MCP server the way a run would, lists its tools and stops it (its whole process tree
 * for stdio). Markers in its env and headers take the saved fleet's values; no secret is in what
 * it answers or in the errors it throws. Throws AppError invalid-input (not a server), not-found
 * (no such fleet), unavailable (it did not start or list its tools).
 */
export async function testToolServer(
  catalog: FleetCatalog,
  input: ToolServerTestInput,
): Promise<{ tools: ToolServerTool[]; durationMs: number }> {
  const saved = input.fleetId !== undefined ? catalog.get(input.fleetId).fleet : null;
  const restored = restoreFleetSecrets({ mcpServers: { [input.name]: input.server } }, saved);
  const parsed = mcpServerSchema.safeParse(restored.mcpServers[input.name]);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || input.name}: ${issue.message}`)
      .join('; ');
    throw new AppError('invalid-input', `The server "${input.name}" is not valid: ${detail}`);
  }
  const spec: McpServerSpec = parsed.data;
  const hide = masker(input.name, spec);
  const connection = new McpServerConnection(
    input.name,
    spec,
    Math.min(spec.timeoutMs ?? TEST_TIMEOUT_MS, TEST_TIMEOUT_MS),
  );
  const started = performance.now();
  try {
    const tools = await connection.start();
    const durationMs = Math.round(performance.now() - started);
    return {
      tools: tools.map((tool) => ({
        name: tool.name,
        description: hide(tool.description),
        inputSchema: JSON.parse(hide(JSON.stringify(tool.inputSchema))) as ToolServerTool['inputSchema'],
      })),
      durationMs,
    };
  } catch (error) {
    throw new AppError('unavailable', hide(error instanceof Error ? error.message : String(error)));
  } finally {
    await connection.close();
  }
}

/** Replaces the server's env and header values with their markers, as a run's record has them. */
function masker(name: string, spec: McpServerSpec): (text: string) => string {
  const secrets = new SecretMasker(mcpSecrets({ [name]: spec }));
  return (text) => secrets.mask(text);
}

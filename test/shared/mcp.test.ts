import { describe, expect, it } from 'vitest';
import {
  displayToolName,
  maskFleetSecrets,
  needsApproval,
  parseFleet,
  parseMcpToolRef,
  restoreFleetSecrets,
} from '@shared/domain';
import { modelToolName } from '../../src-main/orchestrator/tools';

const fleetWith = (tools: string[], mcpServers: Record<string, unknown> = {}) => ({
  version: 1,
  name: 'f',
  mcpServers,
  agents: [{ name: 'a', type: 'scripted', tools, script: [{ content: 'x' }] }],
  team: { pattern: 'sequential' },
});

describe('MCP names and settings in fleets', () => {
  it('reads server/tool and server/*, and leaves built-in names alone', () => {
    expect(parseMcpToolRef('files/read_text_file')).toEqual({ server: 'files', tool: 'read_text_file' });
    expect(parseMcpToolRef('files/*')).toEqual({ server: 'files', tool: '*' });
    expect(parseMcpToolRef('calculator')).toBeNull();
    expect(parseMcpToolRef('/x')).toBeNull();
  });

  it('shows the name a model called as server/tool again', () => {
    expect(displayToolName(modelToolName('files/read_text_file'))).toBe('files/read_text_file');
    expect(displayToolName('transfer_to_bob')).toBe('transfer_to_bob');
  });

  it('asks for approval for the whole server or the listed tools only', () => {
    expect(needsApproval({ requireApproval: true }, 'any')).toBe(true);
    expect(needsApproval({ requireApproval: ['write_file'] }, 'write_file')).toBe(true);
    expect(needsApproval({ requireApproval: ['write_file'] }, 'read_file')).toBe(false);
    expect(needsApproval({}, 'read_file')).toBe(false);
  });

  it('a tool naming a server the fleet does not declare is an error naming the servers it has', () => {
    const result = parseFleet(fleetWith(['memory/read_graph'], { files: { command: 'npx', args: [] } }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({ path: 'agents[0].tools[0]' });
    expect(result.issues[0]?.message).toContain('"memory"');
    expect(result.issues[0]?.message).toContain('servers: files');
  });

  it('a server with both a command and a url, or neither, is refused', () => {
    expect(parseFleet(fleetWith([], { x: { command: 'a', url: 'http://127.0.0.1:1/mcp' } })).ok).toBe(false);
    expect(parseFleet(fleetWith([], { x: { args: [] } })).ok).toBe(false);
    expect(
      parseFleet(fleetWith(['x/*'], { x: { url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' } } })).ok,
    ).toBe(true);
  });

  it('masks env and header values for the renderer and restores the unchanged ones', () => {
    const saved = fleetWith([], {
      s: { command: 'c', env: { TOKEN: 'real-secret-1', OTHER: 'real-secret-2' } },
      h: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer abc' } },
    });
    const masked = maskFleetSecrets(saved);
    expect(JSON.stringify(masked)).not.toContain('real-secret');
    expect(JSON.stringify(masked)).not.toContain('Bearer abc');
    const edited = structuredClone(masked) as typeof masked;
    (edited.mcpServers.s as { env: Record<string, string> }).env.OTHER = 'new-secret';
    const restored = restoreFleetSecrets(edited, saved);
    expect((restored.mcpServers.s as { env: Record<string, string> }).env).toEqual({
      TOKEN: 'real-secret-1',
      OTHER: 'new-secret',
    });
    expect((restored.mcpServers.h as { headers: Record<string, string> }).headers.Authorization).toBe(
      'Bearer abc',
    );
  });
});

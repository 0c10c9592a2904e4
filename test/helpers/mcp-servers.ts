import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { McpServerSpec } from '@shared/domain';
import { isAlive } from '../../src-main/orchestrator/tools/mcp';

const require = createRequire(import.meta.url);

/** The dist/index.js of a reference server installed from npm (no network needed). */
export function referenceServerScript(name: 'everything' | 'filesystem' | 'memory'): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/server-${name}/package.json`)), 'dist/index.js');
}

/** A stdio server spec running a reference server with this Node. */
export function referenceServer(
  name: 'everything' | 'filesystem' | 'memory',
  args: string[] = [],
  extra: Partial<McpServerSpec> = {},
): McpServerSpec {
  return {
    command: process.execPath,
    args: [referenceServerScript(name), ...args],
    env: {},
    ...extra,
  } as McpServerSpec;
}

/** The test's own misbehaving server (see mcp-misbehaving-server.mjs). */
export function misbehavingServer(
  env: Record<string, string> = {},
  extra: Partial<McpServerSpec> = {},
): McpServerSpec {
  const script = fileURLToPath(new URL('./mcp-misbehaving-server.mjs', import.meta.url));
  return { command: process.execPath, args: [script], env, ...extra } as McpServerSpec;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The everything server in its Streamable HTTP mode on a free port; `url` is its MCP endpoint. */
export async function startEverythingHttp(): Promise<{
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  const child = spawn(process.execPath, [referenceServerScript('everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Waits until none of `pids` is alive (a process being reaped can take a moment); true when so.
 * An empty list is false: the test did not see the processes it meant to check.
 */
export async function gone(pids: readonly number[], attempts = 100): Promise<boolean> {
  if (pids.length === 0) return false;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (!pids.some(isAlive)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { FleetInput } from '@shared/domain';
import { makeTempDir } from '../../helpers/temp-dir';
import { startStubChild, type StubChild } from './stub-child';

/** The agents of the team the runtime benches run. */
export const BENCH_AGENTS = ['planner', 'researcher', 'coder', 'critic'];

/**
 * For one bench file: the stub server in its own process, started before its tests and stopped
 * after, and fresh folders in one temp folder (`<prefix>…`) removed after.
 */
export function useStubChild(prefix: string): {
  readonly stub: StubChild;
  /** The temp folder itself. */
  dir: string;
  freshFolder(): string;
} {
  let stub: StubChild | undefined;
  const temp = makeTempDir(prefix);
  let folders = 0;
  beforeAll(async () => {
    stub = await startStubChild();
  });
  afterAll(async () => {
    await stub?.close();
    temp.remove();
  });
  return {
    get stub() {
      if (!stub) throw new Error('The stub starts before the tests.');
      return stub;
    },
    dir: temp.dir,
    freshFolder: () => join(temp.dir, `run-${(folders += 1)}`),
  };
}

/** Four LLM agents taking turns on the stub at `baseUrl` with `model`: the task, then `turns` replies. */
export function roundRobinTeam(baseUrl: string, model: string, turns: number): FleetInput {
  return {
    version: 1,
    name: 'bench round robin',
    agents: BENCH_AGENTS.map((name) => ({
      name,
      type: 'llm' as const,
      systemPrompt: `You are the ${name} of a small software team. Answer briefly.`,
      provider: { id: 'custom' as const, baseUrl, model },
    })),
    team: { pattern: 'round-robin', order: BENCH_AGENTS },
    // The task is a message too: 1 + turns messages.
    termination: { type: 'max-messages', max: turns + 1 },
  } as FleetInput;
}

import type { FleetInput } from '../../../src-shared/domain';

const AGENTS = 50;
const WORKERS = 16;
/** About 12 s of streaming per worker: 3000 characters, 5 per chunk, every 20 ms. */
const CONTENT = 'Streaming findings, token by token, so the graph and transcript keep moving. '.repeat(40);

/** 50 scripted agents; the parallel team streams 16 workers at once into an aggregator. */
export function streamingFleet(): FleetInput {
  const names = Array.from({ length: AGENTS }, (_, i) => `agent${String(i).padStart(2, '0')}`);
  const workers = names.slice(0, WORKERS);
  const aggregator = names[WORKERS] as string;
  return {
    version: 1,
    name: 'Bench: 16 of 50 streaming',
    agents: names.map((name) => ({
      name,
      type: 'scripted',
      role: workers.includes(name) ? 'worker' : name === aggregator ? 'aggregator' : 'bystander',
      script: [{ content: CONTENT, chunkSize: 5, delayMs: 20 }],
    })),
    team: { pattern: 'parallel', workers, aggregator },
    termination: { type: 'max-messages', max: 40 },
  };
}

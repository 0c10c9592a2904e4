import { fleetSchema, type FleetInput } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../src-main/app';
import type { ImportedEvent } from '../../src-main/history/ports';
import { sampleEvents } from '../main/interop/export/sample-session';

/**
 * The setup the branch benches (fork, compare) share: an app on a bench data folder (no samples,
 * pings or store watcher to disturb the figures) holding the sample session, recorded with a
 * fleet this app could run, so forking it is allowed.
 */

/** Two model agents on a closed loopback port and a scripted reviewer: nothing is ever called. */
const FLEET: FleetInput = {
  version: 1,
  name: 'review-team',
  agents: [
    { name: 'planner', provider: { id: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } },
    { name: 'coder', provider: { id: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } },
    { name: 'reviewer', type: 'scripted', script: [{ content: 'LGTM' }] },
  ],
  team: { pattern: 'round-robin', order: ['planner', 'coder', 'reviewer'] },
};

/** The sample run of `count` messages, its start carrying FLEET. */
function* runnableEvents(count: number): Generator<ImportedEvent> {
  for (const event of sampleEvents(count)) {
    if (event.kind === 'session.started')
      yield { ...event, payload: { ...event.payload, fleet: fleetSchema.parse(FLEET) } };
    else yield event;
  }
}

export function createBenchApp(dataDir: string): FleetscopeApp {
  return createApp({
    dataDir,
    surface: 'cli',
    env: {},
    seedSamples: false,
    pingIntervalMs: 0,
    watchStore: false,
  });
}

/** Stores the sample session of `messages` messages; its id. */
export function importRunnableSession(app: FleetscopeApp, messages: number): string {
  const meta = {
    title: 'Bench',
    task: 'bench',
    fleetName: FLEET.name,
    source: 'bench',
    createdAt: Date.now(),
    tags: [],
  };
  return app.store.importSession(meta, runnableEvents(messages));
}

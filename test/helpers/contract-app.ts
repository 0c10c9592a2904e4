import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { ChannelName, Input, Output } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { createApp, type AppOptions, type FleetscopeApp } from '../../src-main/app';
import { callChecked, failChecked } from './checked-dispatch';
import { makeTempDir } from './temp-dir';

type TempDir = ReturnType<typeof makeTempDir>;

/** A headless app over a real store in a temp folder, called through the contract as its surface. */
export interface ContractApp {
  readonly app: FleetscopeApp;
  /** The temp folder; the app's data folder is `dataDir` inside it. */
  readonly temp: TempDir;
  readonly dataDir: string;
  /** The value of a call that must succeed, checked against the channel's output schema. */
  call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>>;
  /** The error of a call that must fail. */
  fail(channel: ChannelName, input: unknown): Promise<{ code: string; message: string }>;
  /** Starts a run of `fleet` on `task` and waits (10 s at most) until its session completed; its id. */
  runToEnd(fleet: FleetInput, task: string): Promise<string>;
}

/**
 * Opens a fresh app for each test (`per: 'test'`) or once for the suite (`per: 'suite'`) and
 * closes it and removes its folder after; `options` change how the app is created (its surface
 * also names the calls' surface; default 'cli').
 */
export function contractApp(per: 'test' | 'suite', options: Partial<AppOptions> = {}): ContractApp {
  const surface = options.surface ?? 'cli';
  let temp: TempDir | undefined;
  let app: FleetscopeApp | undefined;
  const open = () => {
    temp = makeTempDir();
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface,
      pingIntervalMs: 0,
      seedSamples: false,
      ...options,
    });
  };
  const close = async () => {
    await app?.close();
    temp?.remove();
  };
  if (per === 'test') {
    beforeEach(open);
    afterEach(close);
  } else {
    beforeAll(open);
    afterAll(close);
  }
  const opened = (): FleetscopeApp => {
    if (!app) throw new Error('The app opens before each test (or the suite).');
    return app;
  };
  const handle: ContractApp = {
    get app() {
      return opened();
    },
    get temp() {
      if (!temp) throw new Error('The app opens before each test (or the suite).');
      return temp;
    },
    get dataDir() {
      return join(handle.temp.dir, 'data');
    },
    call: (channel, input) => callChecked(opened().dispatcher, channel, input, { surface }),
    fail: (channel, input) => failChecked(opened().dispatcher, channel, input, { surface }),
    async runToEnd(fleet, task) {
      const { sessionId } = await handle.call('runs.start', { source: { fleet }, task });
      await expect
        .poll(async () => (await handle.call('sessions.get', { id: sessionId })).summary.status, {
          timeout: 10_000,
        })
        .toBe('completed');
      return sessionId;
    },
  };
  return handle;
}

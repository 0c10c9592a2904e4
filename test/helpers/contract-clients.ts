import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { Result, ServerFrame } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { registerIpcHandlers, WindowClients } from '../../src-main/electron/ipc';
import { FakeIpcMain, frame } from '../main/electron/fake-ipc-main';
import { callChecked } from './checked-dispatch';
import { startTestHost, type RunningHost } from './web-host';

/**
 * One real app behind both bindings, for properties over the contract: a real web host's
 * WebSocket (JSON only) and the desktop IPC binding on a fake ipcMain (anything structured clone
 * carries). Seeded with a finished session of a scripted fleet and that fleet saved.
 */

const RENDERER = 'file:///opt/Fleetscope/resources/app.asar/out/renderer/index.html';
const CLI = { surface: 'cli' } as const;

/** Two scripted agents taking turns: runs finish at once, never leave the machine, and leave a few messages to fork at. */
export const echoFleet: FleetInput = {
  version: 1,
  name: 'Echo',
  agents: [
    { name: 'echo', type: 'scripted', script: [{ content: 'Heard you.' }, { content: 'Still here.' }] },
    { name: 'mirror', type: 'scripted', script: [{ content: 'Same here.' }, { content: 'Likewise.' }] },
  ],
  team: { pattern: 'round-robin', order: ['echo', 'mirror'] },
  termination: { type: 'max-messages', max: 4 },
};

export interface ContractClients {
  running: RunningHost;
  overSocket(channel: unknown, payload: unknown): Promise<Result<unknown>>;
  overIpc(channel: string, payload: unknown): Promise<Result<unknown>>;
  /** What a refused call must leave as it was. */
  snapshot(): Promise<StoreSnapshot>;
  /** Starts a run of the echo fleet and waits until it has finished; its session id. */
  seedSession(): Promise<string>;
  /** Waits until no run of this process is going (a call may have started or continued one). */
  idle(): Promise<void>;
  /** Sends a raw text frame over the WebSocket and resolves with the next frame back. */
  sendRaw(text: string): Promise<ServerFrame>;
  stop(): Promise<void>;
}

export type StoreSnapshot = Awaited<ReturnType<typeof takeSnapshot>>;

async function takeSnapshot(running: RunningHost) {
  const dispatcher = running.app.dispatcher;
  const sessions = await callChecked(dispatcher, 'sessions.list', { limit: 500 }, CLI);
  return {
    sessions,
    events: sessions.items.map((item) => running.app.store.countEvents(item.id)),
    fleets: await callChecked(dispatcher, 'fleets.list', {}, CLI),
    settings: await callChecked(dispatcher, 'settings.get', {}, CLI),
    providers: await callChecked(dispatcher, 'providers.list', {}, CLI),
    traces: await callChecked(dispatcher, 'traces.receiver', {}, CLI),
    /** Files in the data folder's exports/ (a refused export writes none, not even a partial one). */
    exports: existsSync(join(running.dataDir, 'exports'))
      ? readdirSync(join(running.dataDir, 'exports')).sort()
      : [],
  };
}

async function waitFor(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; !(await done()); tries++) {
    if (tries > 500) throw new Error(`${what} did not happen`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startContractClients(): Promise<ContractClients> {
  const running = await startTestHost();
  const { app } = running;

  const seedSession = async () => {
    const started = await callChecked(
      app.dispatcher,
      'runs.start',
      { source: { fleet: echoFleet }, task: 'Say something' },
      CLI,
    );
    await waitFor(
      () => app.store.getSession(started.sessionId)?.summary.status === 'completed',
      'the seed run',
    );
    return started.sessionId;
  };
  await seedSession();
  await callChecked(app.dispatcher, 'fleets.save', { fleet: echoFleet }, CLI);
  await callChecked(app.dispatcher, 'settings.set', { theme: 'dark', retentionDays: 30 }, CLI);

  const { port, token } = running.host;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
    origin: `http://127.0.0.1:${port}`,
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 1;
  const waiting = new Map<number, { resolve(result: Result<unknown>): void; reject(error: Error): void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as ServerFrame;
    if (message.type !== 'result') return;
    waiting.get(message.id)?.resolve(message.result);
    waiting.delete(message.id);
  });
  socket.on('close', (code) => {
    for (const call of waiting.values())
      call.reject(new Error(`the WebSocket closed (${code}) before answering`));
    waiting.clear();
  });
  socket.send(JSON.stringify({ type: 'hello', epoch: null, lastSeq: 0 }));

  const ipcMain = new FakeIpcMain();
  const stopIpc = registerIpcHandlers(app, ipcMain, RENDERER, new WindowClients());

  return {
    running,
    seedSession,
    overSocket(channel, payload) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        socket.send(JSON.stringify({ type: 'call', id, channel, payload }));
      });
    },
    async overIpc(channel, payload) {
      const handler = ipcMain.handlers.get(channel);
      if (!handler) throw new Error(`no IPC handler for ${channel}`);
      return (await handler({ senderFrame: frame(RENDERER), sender: { id: 1 } }, payload)) as Result<unknown>;
    },
    snapshot: () => takeSnapshot(running),
    async idle() {
      await waitFor(
        async () => (await callChecked(app.dispatcher, 'runs.active', {}, CLI)).length === 0,
        'the end of every run',
      );
    },
    sendRaw(text) {
      const reply = new Promise<ServerFrame>((resolve) =>
        socket.once('message', (data) => resolve(JSON.parse(String(data)) as ServerFrame)),
      );
      socket.send(text);
      return reply;
    },
    async stop() {
      stopIpc();
      socket.close();
      await running.stop();
    },
  };
}

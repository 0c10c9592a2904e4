import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelName, Input, Output, Result } from '@shared/contract';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { dispatchChecked } from '../../helpers/checked-dispatch';
import { misbehavingServer, referenceServer } from '../../helpers/mcp-servers';
import { makeTempDir } from '../../helpers/temp-dir';
import { call, results, toolFleet } from './mcp-run-helpers';

const SECRET = 'ghp_mcpSecret0123456789abcdef';
const MARKER = '[masked mcpServers.everything.env.API_TOKEN]';

describe("an MCP server's env values are secrets", () => {
  const temp = makeTempDir();
  let app: FleetscopeApp;
  async function dispatch<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> {
    const result = (await dispatchChecked(app.dispatcher, channel, input, { surface: 'cli' })) as Result<
      Output<C>
    >;
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value;
  }
  beforeAll(() => {
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'cli',
      pingIntervalMs: 0,
      seedSamples: false,
    });
  });
  afterAll(async () => {
    await app.close();
    temp.remove();
  });

  it('the renderer sees markers, a save keeps the secret, and runs, logs and exports never hold it', async () => {
    const fleet = toolFleet(
      { everything: referenceServer('everything', ['stdio'], { env: { API_TOKEN: SECRET } }) },
      ['everything/get-env'],
      [call('everything/get-env', {}, 'Here is my environment.')],
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const shown = await dispatch('fleets.get', { id });
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(JSON.stringify(shown)).toContain(MARKER);
    // Saving what the renderer was shown keeps the real value.
    await dispatch('fleets.save', { id, fleet: { ...shown.fleet, description: 'edited' } });
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: id }, task: 'Show your env' });
    await expect
      .poll(async () => (await dispatch('sessions.get', { id: sessionId })).summary.status, {
        timeout: 30_000,
      })
      .toBe('completed');
    const { events } = await dispatch('sessions.events', { id: sessionId, afterSeq: 0 });
    const env = events.find((event) => event.kind === 'tool.executed');
    // The server got the real value (it echoes its environment), and the record has the marker.
    expect(JSON.stringify(env)).toContain(MARKER);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const exported = await dispatch('sessions.export', { id: sessionId, format: 'json' });
    expect(readFileSync(exported.path, 'utf8')).not.toContain(SECRET);
    for (const file of readdirSync(join(temp.dir, 'data')).filter((name) => name.endsWith('.log')))
      expect(readFileSync(join(temp.dir, 'data', file), 'utf8')).not.toContain(SECRET);
  }, 60_000);

  /** Waits for a session to end and returns what its `bad/token` calls said. */
  async function tokenKinds(sessionId: string): Promise<string[]> {
    await expect
      .poll(async () => (await dispatch('sessions.get', { id: sessionId })).summary.status, {
        timeout: 30_000,
      })
      .toBe('completed');
    const { events } = await dispatch('sessions.events', { id: sessionId, afterSeq: 0 });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    return results(events).map((result) => result.result);
  }
  const REAL = `API_TOKEN is a real value of ${SECRET.length} characters`;

  it('a continued and a forked session start the server with the saved values, not the markers', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({ API_TOKEN: SECRET }) },
      ['bad/token'],
      [call('bad/token', {}, 'first'), call('bad/token', {}, 'second'), call('bad/token', {}, 'third')],
      { name: 'Token keeper' },
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: id }, task: 'Check' });
    expect(await tokenKinds(sessionId)).toEqual([REAL]);
    const stored = await dispatch('sessions.get', { id: sessionId });
    expect(JSON.stringify(stored.fleet)).not.toContain(SECRET);

    await dispatch('runs.continue', { sessionId, task: 'Again' });
    expect(await tokenKinds(sessionId)).toEqual([REAL, REAL]);

    const fork = await dispatch('branches.fork', { sessionId, atMessage: 1 });
    expect((await tokenKinds(fork.sessionId)).at(-1)).toBe(REAL);
  }, 90_000);

  it('a continuation whose fleet no longer holds the secret is refused with the reason', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({ API_TOKEN: SECRET }) },
      ['bad/token'],
      [call('bad/token', {}, 'first'), call('bad/token', {}, 'second')],
      { name: 'Short-lived keeper' },
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: id }, task: 'Check' });
    expect(await tokenKinds(sessionId)).toEqual([REAL]);
    await dispatch('fleets.delete', { id });
    const refused = await dispatchChecked(
      app.dispatcher,
      'runs.continue',
      { sessionId, task: 'Again' },
      { surface: 'cli' },
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(JSON.stringify(refused)).toContain('bad.env.API_TOKEN');
    expect((await dispatch('sessions.get', { id: sessionId })).summary.status).toBe('completed');
  }, 60_000);

  it('a duplicated fleet keeps the secrets it was copied with', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({ API_TOKEN: SECRET }) },
      ['bad/token'],
      [call('bad/token', {}, 'done')],
      { name: 'Original' },
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const shown = await dispatch('fleets.get', { id });
    const copy = await dispatch('fleets.save', {
      copyOf: id,
      fleet: { ...shown.fleet, name: 'Original (copy)' },
    });
    expect(JSON.stringify(await dispatch('fleets.get', { id: copy.id }))).not.toContain(SECRET);
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: copy.id }, task: 'Check' });
    expect(await tokenKinds(sessionId)).toEqual([REAL]);
  }, 60_000);

  it('a fleet saved with the masked placeholders (a session snapshot) is refused before it runs', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({ API_TOKEN: SECRET }) },
      ['bad/token'],
      [call('bad/token', {}, 'done')],
      { name: 'Snapshot source' },
    );
    const { id } = await dispatch('fleets.save', { fleet });
    const { sessionId } = await dispatch('runs.start', { source: { fleetId: id }, task: 'Check' });
    expect(await tokenKinds(sessionId)).toEqual([REAL]);
    // "Fork as new fleet" without naming the fleet it came from: the snapshot's markers are saved.
    const snapshot = (await dispatch('sessions.get', { id: sessionId })).fleet as { name: string };
    const orphan = await dispatch('fleets.save', { fleet: { ...snapshot, name: 'Snapshot (fork)' } });
    const before = (await dispatch('sessions.list', { limit: 100 })).total;
    const refused = await dispatchChecked(
      app.dispatcher,
      'runs.start',
      { source: { fleetId: orphan.id }, task: 'Check' },
      { surface: 'cli' },
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(JSON.stringify(refused)).toContain('bad.env.API_TOKEN');
    expect((await dispatch('sessions.list', { limit: 100 })).total).toBe(before);
    // Naming it (as the app's Fork as new fleet does) gives the copy the real values.
    const forked = await dispatch('fleets.save', {
      copyOf: id,
      fleet: { ...snapshot, name: 'Snapshot (fork 2)' },
    });
    const run = await dispatch('runs.start', { source: { fleetId: forked.id }, task: 'Check' });
    expect(await tokenKinds(run.sessionId)).toEqual([REAL]);
  }, 60_000);
});

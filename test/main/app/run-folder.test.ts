import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import { callChecked, failChecked } from '../../helpers/checked-dispatch';
import { fleet, llm } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { makeTempDir } from '../../helpers/temp-dir';

describe("a run started in the app shares a folder for read_file, like the CLI's --files", () => {
  const temp = makeTempDir();
  let stub: OpenAiStub;
  let app: FleetscopeApp;
  const events: RunEvent[] = [];
  const folder = join(temp.dir, 'notes');

  beforeAll(async () => {
    stub = await startOpenAiStub();
    mkdirSync(folder);
    writeFileSync(join(folder, 'findings.md'), 'The main constraint is time.');
    app = createApp({
      dataDir: join(temp.dir, 'data'),
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
    });
    app.hub.onDidEmit((event) => {
      if (event.channel === 'run.events') events.push(...event.payload.events);
    });
  });
  afterAll(async () => {
    await app.close();
    await stub.close();
    temp.remove();
  });

  const researcher = () =>
    fleet({
      agents: [llm('researcher', stub.baseUrl, { tools: ['read_file'] })],
      team: { pattern: 'sequential' },
    });
  const source = () => ({ fleet: researcher() });

  it('reads a file inside the chosen folder', async () => {
    stub.enqueue(
      { type: 'tools', calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"findings.md"}' }] },
      { type: 'text', content: 'Time is the constraint.' },
    );
    const { sessionId } = await callChecked(
      app.dispatcher,
      'runs.start',
      { source: source(), task: 'What limits us?', folder },
      { surface: 'browser' },
    );
    await expect
      .poll(() => events.some((event) => event.sessionId === sessionId && event.kind === 'session.stopped'), {
        timeout: 15_000,
      })
      .toBe(true);
    const executed = events.filter(
      (event) => event.sessionId === sessionId && event.kind === 'tool.executed',
    );
    expect(executed.map((event) => event.kind === 'tool.executed' && event.payload)).toEqual([
      expect.objectContaining({ name: 'read_file', result: 'The main constraint is time.', isError: false }),
    ]);
  });

  it('refuses a folder that is not a full path, does not exist or is a file, and starts nothing', async () => {
    const before = (await callChecked(app.dispatcher, 'sessions.list', {}, { surface: 'browser' })).total;
    for (const [bad, words] of [
      ['notes', 'full path'],
      [join(temp.dir, 'missing'), 'There is no folder'],
      [join(folder, 'findings.md'), 'is a file, not a folder'],
    ] as const) {
      const error = await failChecked(
        app.dispatcher,
        'runs.start',
        { source: source(), task: 'Read', folder: bad },
        { surface: 'browser' },
      );
      expect(error.code).toBe('invalid-input');
      expect(error.message).toContain(words);
    }
    expect((await callChecked(app.dispatcher, 'sessions.list', {}, { surface: 'browser' })).total).toBe(
      before,
    );
  });
});

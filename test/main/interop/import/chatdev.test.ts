import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet, Message, RunEvent } from '@shared/domain';
import { createApp } from '../../../../src-main/app';
import { importFile } from '../../../../src-main/interop/import';
import { runCli } from '../../../../src-main/cli/main';
import { captureIo } from '../../../helpers/cli-io';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));
const FIXTURE = join(REAL, 'chatdev-bmi-calculator.log');
const STAMP = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} INFO\] /;

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir('fleetscope-chatdev-');
});
afterAll(() => temp.remove());

function messagesOf(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

function fleetOf(events: RunEvent[]): Fleet {
  const started = events.find((event) => event.kind === 'session.started');
  if (started?.kind !== 'session.started') throw new Error('no session.started');
  return started.payload.fleet;
}

async function load(path: string) {
  const store = new MemorySessions();
  const result = await importFile(path, store);
  const session = store.sessions.get(result.sessionId);
  if (!session) throw new Error('not stored');
  return { result, session, messages: messagesOf(session.events) };
}

/** The fixture's utterances, read the simple way: entries whose header is a chat line, with their bodies. */
function utterancesOfFixture(): Array<{ speaker: string; body: string }> {
  const entries = readFileSync(FIXTURE, 'utf8').split(/\n(?=\[\d{4}-)/);
  return entries.flatMap((entry) => {
    const [header = '', ...rest] = entry.replace(STAMP, '').split('\n');
    const speaker = /^(.+?): \*\*(\[Start Chat\]|.+<->.+ on : .+, turn \d+)\*\*$/.exec(header)?.[1];
    return speaker ? [{ speaker, body: rest.join('\n').trim() }] : [];
  });
}

async function refused(name: string, content: string | Buffer): Promise<string> {
  const path = join(temp.dir, name);
  writeFileSync(path, content);
  const store = new MemorySessions();
  const error = await importFile(path, store).then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toMatchObject({ name: 'TransferError', code: 'invalid-input' });
  expect(store.sessions.size).toBe(0);
  return (error as Error).message;
}

describe('importing a real ChatDev log', () => {
  it('keeps every utterance of the fixture: 24 messages, each line of each one present', async () => {
    const { result, messages, session } = await load(FIXTURE);
    expect(result.format).toBe('chatdev-log');
    const utterances = utterancesOfFixture();
    expect(utterances).toHaveLength(24);
    const spoken = messages.filter((message) => message.kind !== 'system');
    expect(spoken).toHaveLength(24);
    const prompts = fleetOf(session.events).agents.map((agent) => agent.systemPrompt ?? '');
    const everything = [...messages.map((message) => message.content), ...prompts].join('\n');
    for (const [index, utterance] of utterances.entries()) {
      expect(spoken[index]?.from).toBe(utterance.speaker.replace(/ /g, '_'));
      // The message text is the utterance after ChatDev's bracketed role prompt; the prompt is the
      // role's system prompt. Together they hold every line of the utterance.
      expect(utterance.body.endsWith(spoken[index]?.content ?? '\u0000')).toBe(true);
      for (const line of utterance.body.split('\n').filter((text) => text.trim() !== ''))
        expect(everything).toContain(line.replace(/^\[|\]$/g, ''));
    }
    expect(everything).not.toContain('flask app.py did not start');
  });

  it('knows who spoke to whom, the phases, the usage, the times and the run it belongs to', async () => {
    const { session, messages } = await load(FIXTURE);
    const spoken = messages.filter((message) => message.kind !== 'system');
    expect(spoken[0]).toMatchObject({ from: 'Chief_Executive_Officer', to: 'Chief_Product_Officer' });
    expect(spoken[0]?.content).toMatch(/^ChatDev has made products in the following form before:/);
    expect(spoken[1]).toMatchObject({
      from: 'Chief_Product_Officer',
      to: 'Chief_Executive_Officer',
      content: '<INFO> Application',
      usage: { prompt: 440, completion: 4 },
    });
    expect(spoken[1]?.meta.chatdev).toMatchObject({
      phase: 'DemandAnalysis',
      turn: 0,
      notes: [{ section: 'Seminar Conclusion', text: '<INFO> Application' }],
    });
    const roles = new Set(spoken.map((message) => message.from));
    expect([...roles].sort()).toEqual(
      [
        'Chief_Executive_Officer',
        'Chief_Product_Officer',
        'Chief_Technology_Officer',
        'Code_Reviewer',
        'Counselor',
        'Programmer',
      ].sort(),
    );
    // Role prompts are each role's configuration (its system prompt in the inferred fleet), not
    // messages: the fixture gives each role one prompt.
    expect(messages.filter((message) => message.kind === 'system')).toEqual([]);
    const configured = fleetOf(session.events).agents.filter((agent) => agent.systemPrompt);
    expect(configured.map((agent) => agent.name)).toContain('Chief_Product_Officer');
    for (const agent of configured)
      expect(agent.systemPrompt).toMatch(new RegExp(`You are ${agent.name.replace(/_/g, ' ')}\\.`));
    // [2023-18-09 11:05:21 INFO]: day before month, as ChatDev writes it.
    expect(session.summary.createdAt).toBe(Date.UTC(2023, 8, 18, 11, 5, 21));
    expect(spoken[0]?.t).toBe(6_000);
    expect(spoken.at(-1)?.t).toBe(Date.UTC(2023, 8, 18, 11, 12, 20) - Date.UTC(2023, 8, 18, 11, 5, 21));
    expect(session.summary.title).toBe('BMI Calculator');
    expect(session.summary.task).toBe(
      'Build a BMI calculator application that will take necessary inputs and then will out the BMI',
    );
    expect(session.summary.stopReason).toMatch(/ChatDev run ended/);
    const summaryNote = JSON.stringify(spoken.at(-1)?.meta);
    expect(summaryNote).toContain('num_utterances**=24');
  });

  it('imports when uploaded through the contract (the browser and window path), under its own name', async () => {
    const app = createApp({
      dataDir: join(temp.dir, 'upload-store'),
      surface: 'browser',
      seedSamples: false,
      pingIntervalMs: 0,
    });
    try {
      const content = readFileSync(FIXTURE, 'utf8');
      const result = await app.call('sessions.importData', { fileName: 'BMI Calculator.log', content });
      expect(result).toMatchObject({ format: 'chatdev-log', messageCount: expect.any(Number) });
      const page = app.store.pageMessages(result.sessionId, {});
      expect(page.items.some((message) => message.content === '<INFO> Application')).toBe(true);
      await expect(
        app.call('sessions.importData', { fileName: 'C:\\runs\\notes.log', content: 'just notes\n' }),
      ).rejects.toThrow(/^notes\.log is named like a ChatDev log but looks like plain text/);
    } finally {
      await app.close();
    }
  });

  it('imports through the CLI into a real store, printing the format', async () => {
    const io = captureIo({});
    const code = await runCli(['import', FIXTURE, '--data-dir', join(temp.dir, 'store')], io);
    expect(io.stderr).toEqual([]);
    expect(code).toBe(0);
    expect(io.stdout.join('\n')).toMatch(/chatdev-log/);
  });
});

describe('ChatDev logs in other shapes', () => {
  const entry = (stamp: string, text: string) => `[${stamp} INFO] ${text}\n\n`;

  it('an older log with ANSI colours and no closing summary imports, saying it was cut short', async () => {
    const path = join(temp.dir, 'old.log');
    writeFileSync(
      path,
      entry('2023-05-06 10:00:00', '\u001b[32mSystem: **[RolePlaying]**\u001b[0m') +
        '| **assistant_role_name** | Programmer |\n| **user_role_name** | Chief Technology Officer |\n\n' +
        entry('2023-05-06 10:00:01', 'Chief Technology Officer: **[Start Chat]**') +
        'Write the code.\n\n' +
        entry(
          '2023-05-06 10:00:09',
          '\u001b[33mProgrammer: **Programmer<->Chief Technology Officer on : Coding, turn 0**\u001b[0m',
        ) +
        'Here it is:\n```python\nprint("hi")\n```\n',
    );
    const { session, messages } = await load(path);
    expect(messages.map((m) => `${m.from}>${m.to}: ${m.content}`)).toEqual([
      'Chief_Technology_Officer>Programmer: Write the code.',
      'Programmer>Chief_Technology_Officer: Here it is:\n```python\nprint("hi")\n```',
    ]);
    expect(session.summary.stopReason).toMatch(/without the run summary/);
    // 2023-05-06 in ChatDev's day-before-month stamp is the 5th of June.
    expect(session.summary.createdAt).toBe(Date.UTC(2023, 5, 5, 10, 0, 0));
  });

  it("a role's first prompt configures it; a different later prompt is kept as a message to it", async () => {
    const path = join(temp.dir, 'two-prompts.log');
    const say = (at: string, prompt: string, text: string) =>
      entry(at, 'Chief Technology Officer: **[Start Chat]**') + `[${prompt}]\n\n${text}\n\n`;
    writeFileSync(
      path,
      entry('2023-05-06 10:00:00', 'System: **[RolePlaying]**') +
        '| **assistant_role_name** | Programmer |\n| **user_role_name** | Chief Technology Officer |\n\n' +
        say('2023-05-06 10:00:01', 'You are Programmer. Write Python.', 'Write the code.') +
        say('2023-05-06 10:00:02', 'You are Programmer. Write Python.', 'Again.') +
        say('2023-05-06 10:00:03', 'You are Programmer. Now write tests.', 'Test it.'),
    );
    const { session, messages } = await load(path);
    const programmer = fleetOf(session.events).agents.find((agent) => agent.name === 'Programmer');
    expect(programmer?.systemPrompt).toBe('You are Programmer. Write Python.');
    expect(messages.map((m) => `${m.from}>${m.to} ${m.kind}: ${m.content}`)).toEqual([
      'Chief_Technology_Officer>Programmer text: Write the code.',
      'Chief_Technology_Officer>Programmer text: Again.',
      'system>Programmer system: You are Programmer. Now write tests.',
      'Chief_Technology_Officer>Programmer text: Test it.',
    ]);
  });

  it('refuses a log whose stamp is not a date, naming the line', async () => {
    const message = await refused('bad-date.log', entry('2023-45-45 10:00:00', 'System: **[chatting]**'));
    expect(message).toMatch(/Invalid ChatDev log at line 1: .* is not a date and time/);
  });

  it('refuses a log with entries but no utterances', async () => {
    const message = await refused('quiet.log', entry('2023-18-09 11:05:21', '**[Preprocessing]**'));
    expect(message).toMatch(/holds no utterances/);
  });
});

describe('a file that is not what its name suggests', () => {
  it.each([
    [
      'notes.log',
      'Just some notes about the run.\nNothing structured.\n',
      /notes\.log is named like a ChatDev log but looks like plain text/,
    ],
    [
      'server.log',
      '2024-01-02 10:11:12 INFO started\n2024-01-02 10:11:13 INFO ready\n',
      /looks like a text log in another format/,
    ],
    [
      'team.json',
      '<!DOCTYPE html><html><body>Login</body></html>',
      /team\.json is named like JSON but looks like an HTML page/,
    ],
    ['events.json', '{"a": 1}\n{"a": 2}\n', /looks like JSON Lines/],
    ['team.json', gzipSync(Buffer.from('{"messages": []}')), /looks like gzip-compressed data/],
    ['team.json', Buffer.from([0, 1, 2, 3, 4, 5, 0, 0, 7, 8]), /looks like binary data/],
    ['fleet.yaml', 'name: team\nagents:\n  - a\n', /looks like YAML/],
    ['data.csv', 'from,to,text\nann,bob,hi\n', /looks like CSV/],
    ['transcript', '# Transcript\n\nann: hi\n', /^transcript looks like Markdown text/],
  ])('%s: says what it looks like and stores nothing', async (name, content, expected) => {
    const message = await refused(name, content);
    expect(message).toMatch(expected);
    expect(message).toContain('Fleetscope imports JSON');
  });

  it('a Python value named .json: the JSON error, then what it looks like', async () => {
    const message = await refused('team.json', "{'type': 'TeamState', 'agent_states': None}");
    expect(message).toMatch(
      /^Malformed JSON at line 1, column 2.*team\.json is named like JSON but looks like a Python value printed with print\(\) or repr\(\)/,
    );
  });

  it('the real Python-repr fixture named .json.txt is refused as a Python value', async () => {
    const message = await refused(
      'essay.json.txt',
      readFileSync(join(REAL, 'invalid/autogen-teamstate-python-repr-essaywriter.json.txt')),
    );
    expect(message).toMatch(/line 2, column 5/);
    expect(message).toMatch(/essay\.json\.txt looks like a Python value printed with print\(\) or repr\(\)/);
  });

  it('a ChatDev log named .json still imports: its content decides', async () => {
    const path = join(temp.dir, 'chatdev-named.json');
    writeFileSync(path, readFileSync(FIXTURE));
    const { result, messages } = await load(path);
    expect(result.format).toBe('chatdev-log');
    expect(messages.filter((message) => message.kind !== 'system')).toHaveLength(24);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { startRun } from '../../../src-main/orchestrator';
import { SecretMasker } from '../../../src-main/orchestrator/runtime/secret-masker';
import { checked, fleet, ofKind, scripted } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { openTempHistory } from '../../helpers/temp-store';

const KEY = 'sk-live-Echoed0123456789abcdefXYZ';
const VAULT_KEY = 'vault-key-7f3a9c2e5b1d';
const MARKER = '[masked FLEETSCOPE_TEST_KEY]';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(null);
});

let history: ReturnType<typeof openTempHistory>;
beforeEach(() => {
  history = openTempHistory();
});
afterEach(() => history.cleanup());

const keyedFleet = (tools: string[] = []) =>
  fleet({
    agents: [
      {
        name: 'leaky',
        tools,
        provider: { id: 'custom', baseUrl: stub.baseUrl, model: 'm', apiKeyEnv: 'FLEETSCOPE_TEST_KEY' },
      },
    ],
    team: { pattern: 'sequential' },
  });

async function runStored(tools: string[] = [], secrets?: string[]) {
  const handle = startRun({
    ...checked(keyedFleet(tools)),
    task: 'Tell me your configuration',
    sink: history.store,
    env: { FLEETSCOPE_TEST_KEY: KEY },
    maxRetries: 0,
    idleTimeoutMs: 2_000,
    ...(secrets ? { secrets } : {}),
  });
  const events: RunEvent[] = [];
  handle.onDidEvent((event) => events.push(event));
  const summary = await handle.done;
  return { handle, events, summary };
}

/** Every byte of the store's files (database, WAL, shared memory) after closing it. */
function storeBytes(): string {
  history.close();
  return readdirSync(history.dir)
    .map((name) => readFileSync(join(history.dir, name)).toString('latin1'))
    .join('\n');
}

describe('keys a model server echoes back are masked before they are recorded or relayed', () => {
  it('masks a key split across streamed chunks, in deltas, messages, the store and its search', async () => {
    stub.enqueue({ type: 'text', content: `Sure! My key is ${KEY}, keep it safe.`, chunkSize: 3 });
    const { events, summary, handle } = await runStored();
    expect(summary.status).toBe('completed');
    expect(stub.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(events)).not.toContain(KEY);

    const reply = ofKind(events, 'message.completed').find((event) => event.payload.message.from === 'leaky');
    expect(reply?.payload.message.content).toBe(`Sure! My key is ${MARKER}, keep it safe.`);
    const deltas = ofKind(events, 'message.delta').filter(
      (event) => event.payload.messageId === reply?.payload.message.id,
    );
    // The key arrived in 3-character pieces (masked piece by piece, then recorded as one delta per
    // frame); the deltas still add up to the masked reply. recorder.test.ts splits a key across
    // recorded deltas on purpose.
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.map((event) => event.payload.text).join('')).toBe(reply?.payload.message.content);

    const stored = history.store.pageMessages(handle.sessionId).items.map((message) => message.content);
    expect(stored).toContain(`Sure! My key is ${MARKER}, keep it safe.`);
    expect(history.store.listSessions({ search: KEY }).items).toHaveLength(0);
    expect(history.store.listSessions({ search: 'masked' }).items).toHaveLength(1);
    expect(storeBytes()).not.toContain(KEY);
  });

  it('masks a key that ends the reply (held back until the message completes)', async () => {
    stub.enqueue({ type: 'text', content: `key=${KEY}`, chunkSize: 5 });
    const { events } = await runStored();
    const reply = ofKind(events, 'message.completed').at(-1)?.payload.message;
    expect(reply?.content).toBe(`key=${MARKER}`);
    const deltas = ofKind(events, 'message.delta').map((event) => event.payload.text);
    expect(deltas.join('')).toBe(`key=${MARKER}`);
    expect(storeBytes()).not.toContain(KEY);
  });

  it('masks a key in tool-call arguments and in the tool results that quote it', async () => {
    stub.enqueue(
      {
        type: 'tools',
        argumentChunkSize: 4,
        calls: [{ id: 'c1', name: 'calculator', arguments: JSON.stringify({ expression: KEY }) }],
      },
      { type: 'text', content: 'That was not arithmetic.' },
    );
    const { events } = await runStored(['calculator']);
    expect(JSON.stringify(events)).not.toContain(KEY);
    const requested = ofKind(events, 'tool.requested')[0]?.payload.arguments;
    expect(JSON.parse(requested ?? '{}')).toEqual({ expression: MARKER });
    const call = ofKind(events, 'message.completed').find(
      (event) => event.payload.message.kind === 'function',
    );
    expect(call?.payload.message.toolCalls?.[0]?.arguments).toBe(JSON.stringify({ expression: MARKER }));
    // The model itself was shown the real arguments it produced: masking is for records, not the run.
    const second = stub.chatRequests()[1]?.body?.messages ?? [];
    expect(JSON.stringify(second)).toContain(KEY);
    expect(storeBytes()).not.toContain(KEY);
  });

  it('masks extra secrets the caller names (keys kept in a vault)', async () => {
    stub.enqueue({ type: 'text', content: `The vault holds ${VAULT_KEY}.`, chunkSize: 2 });
    const { events, handle } = await runStored([], [VAULT_KEY, 'short']);
    expect(JSON.stringify(events)).not.toContain(VAULT_KEY);
    const stored = history.store.pageMessages(handle.sessionId).items.map((message) => message.content);
    expect(stored).toContain('The vault holds [masked secret].');
    expect(storeBytes()).not.toContain(VAULT_KEY);
  });

  it('leaves short values alone so ordinary words are not mangled', async () => {
    stub.enqueue({ type: 'text', content: 'The short value is short.' });
    const { events } = await runStored([], ['short']);
    expect(ofKind(events, 'message.completed').at(-1)?.payload.message.content).toBe(
      'The short value is short.',
    );
  });
});

describe('what the run hands out besides events is masked too', () => {
  it('the summary of a run that failed with an error quoting a key', async () => {
    stub.enqueue({
      type: 'raw',
      contentType: 'application/json',
      body: JSON.stringify({ error: { message: `token ${VAULT_KEY} is not valid here` } }),
    });
    const { summary, events } = await runStored([], [VAULT_KEY]);
    expect(summary.status).toBe('failed');
    expect(summary.detail).toContain('token [masked secret] is not valid here');
    expect(JSON.stringify(events)).not.toContain(VAULT_KEY);
  });

  it('the open question a person is asked', async () => {
    const handle = startRun({
      ...checked(
        fleet({
          agents: [scripted('bot', [`Shall I use ${VAULT_KEY}?`]), { name: 'me', type: 'human' }],
          team: { pattern: 'sequential' },
        }),
      ),
      task: 'deploy',
      sink: history.store,
      env: {},
      secrets: [VAULT_KEY],
    });
    await expect.poll(() => handle.pendingHumanRequests().length).toBe(1);
    expect(handle.pendingHumanRequests()[0]?.prompt).toBe('bot: Shall I use [masked secret]?');
    handle.stop();
    await handle.done;
  });
});

describe('SecretMasker', () => {
  const secrets = [
    { value: 'AAAAAAAAXXXXXXXXZZ', label: 'LONG' },
    { value: 'XXXXXXXX', label: 'SHORT' },
    { value: 'abcabcabcd', label: 'REPEAT' },
  ];
  const texts = [
    'plain text with nothing to hide',
    'AAAAAAAAXXXXXXXX and then XXXXXXXX',
    'AAAAAAAAXXXXXXXXZZ!',
    'abcabcabcabcabcd abcabcab',
    'XXXXXXXXXXXXXXXX',
    'ends with the start of a key AAAAAAAAXX',
  ];

  it('masks whole texts, longest secret first where two start together', () => {
    const masker = new SecretMasker(secrets);
    expect(masker.mask('AAAAAAAAXXXXXXXXZZ and XXXXXXXX')).toBe('[masked LONG] and [masked SHORT]');
    expect(masker.mask('AAAAAAAAXXXXXXXX')).toBe('AAAAAAAA[masked SHORT]');
  });

  it('streamed pieces add up to the masked whole however the text is split', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const text of texts) {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const masker = new SecretMasker(secrets);
        let emitted = '';
        let position = 0;
        while (position < text.length) {
          const size = 1 + Math.floor(random() * 6);
          emitted += masker.delta('m1', text.slice(position, position + size));
          position += size;
        }
        emitted += masker.drain('m1');
        expect(emitted, text).toBe(masker.mask(text));
        for (const secret of secrets) expect(emitted).not.toContain(secret.value);
      }
    }
  });

  it('copies only the parts of a value that changed', () => {
    const masker = new SecretMasker(secrets);
    const untouched = { a: ['x', { b: 'y' }] };
    expect(masker.maskDeep(untouched)).toBe(untouched);
    const leaky = { a: ['x', { b: 'XXXXXXXX' }], c: { d: 'z' } };
    const masked = masker.maskDeep(leaky);
    expect(masked).toEqual({ a: ['x', { b: '[masked SHORT]' }], c: { d: 'z' } });
    expect(masked.c).toBe(leaky.c);
    expect(leaky.a[1]).toEqual({ b: 'XXXXXXXX' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@shared/domain';
import { exportSession } from '../../../../src-main/interop/export';
import { importFile } from '../../../../src-main/interop/import';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-roundtrip-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SUMMARY_FIELDS = [
  'title',
  'task',
  'fleetName',
  'status',
  'stopReason',
  'createdAt',
  'messageCount',
  'tokens',
  'tags',
  'parentSessionId',
  'forkSeq',
] as const;

function withoutSession(events: RunEvent[]) {
  return events.map(({ sessionId: _sessionId, ...rest }) => rest);
}

async function roundTrip(store: MemorySessions, id: string, name: string) {
  const path = join(dir, name);
  await exportSession(store, id, 'json', path);
  const result = await importFile(path, store);
  return { result, original: store.sessions.get(id), copy: store.sessions.get(result.sessionId), path };
}

describe('JSON export then import gives an identical session', () => {
  it('keeps every event (seq, t, agent, kind, payload) and the summary fields', async () => {
    const store = new MemorySessions();
    const id = store.addSession({ title: 'Round trip', tags: ['nightly', 'ci'] }, [...sampleEvents(400)]);
    const { result, original, copy } = await roundTrip(store, id, 'plain.json');
    expect(result).toMatchObject({ format: 'fleetscope-json', messageCount: 400 });
    expect(copy && withoutSession(copy.events)).toEqual(original && withoutSession(original.events));
    for (const field of SUMMARY_FIELDS) expect(copy?.summary[field], field).toEqual(original?.summary[field]);
    expect(copy?.summary.source).toBe('fleetscope-json');
  });

  it('keeps emoji, right-to-left text, NUL bytes, lone surrogates and markup byte for byte', async () => {
    const tricky = [
      'emoji 👩🏽‍💻🚀 and flags 🇯🇵',
      'RTL: مرحبا بالعالم — שלום עולם \u202Eevil\u202C',
      'NUL \u0000 in the middle \u0000\u0001\u001f',
      'lone surrogate \ud800 here',
      '<script>alert(1)</script> "quotes" \\ backslash',
      '',
    ];
    const store = new MemorySessions();
    const id = store.addSession({ title: 'Ünïcödé 🚀 \u0000' }, [
      ...sampleEvents(tricky.length, (i) => tricky[i] ?? ''),
    ]);
    const { copy, original } = await roundTrip(store, id, 'tricky.json');
    const contents = (copy?.events ?? []).flatMap((e) =>
      e.kind === 'message.completed' ? [e.payload.message.content] : [],
    );
    expect(contents).toEqual(tricky);
    expect(copy?.summary.title).toBe('Ünïcödé 🚀 \u0000');
    expect(copy && withoutSession(copy.events)).toEqual(original && withoutSession(original.events));
  });

  it('keeps a 12-million-character message', { timeout: 120_000 }, async () => {
    const unit = 'Ab9 ✓ ünï 🚀 "q" \\ \n';
    const big = unit.repeat(Math.floor(12_000_000 / unit.length));
    const store = new MemorySessions();
    const id = store.addSession({}, [...sampleEvents(3, (i) => (i === 1 ? big : `small ${i}`))]);
    const { copy } = await roundTrip(store, id, 'big.json');
    const message = copy?.events.find(
      (e) => e.kind === 'message.completed' && e.payload.message.id === 'msg-1',
    );
    const content = message?.kind === 'message.completed' ? message.payload.message.content : '';
    expect(content.length).toBe(big.length);
    expect(content === big).toBe(true);
  });

  it(
    'exports a 100 MB message, and import refuses it by its string limit without a crash',
    { timeout: 120_000 },
    async () => {
      const unit = 'Ab9 ✓ ünï 🚀 "q" \\ \n';
      const big = unit.repeat(Math.ceil((100 * 1024 * 1024) / Buffer.byteLength(unit)));
      const store = new MemorySessions();
      const id = store.addSession({}, [...sampleEvents(3, (i) => (i === 1 ? big : `small ${i}`))]);
      const path = join(dir, 'huge.json');
      await exportSession(store, id, 'json', path);
      expect(statSync(path).size).toBeGreaterThan(100 * 1024 * 1024);
      const error = await importFile(path, store).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'too-large' });
      expect((error as Error).message).toMatch(/is longer than 16,777,216 characters/);
      expect(store.sessions.size).toBe(1);
    },
  );

  it('never writes secrets: key-like fleet fields and apiKeyEnv values are removed', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const store = new MemorySessions();
    const events = [...sampleEvents(10, (i) => (i === 3 ? `the key is ${secret}` : `m${i}`))];
    const started = events[0];
    if (started?.kind !== 'session.started') throw new Error('sample starts with session.started');
    const leaky = structuredClone(started.payload.fleet) as unknown as {
      agents: Array<{ provider?: Record<string, unknown> }>;
    };
    Object.assign(leaky.agents[0]?.provider ?? {}, {
      apiKey: secret,
      headers: { Authorization: `Bearer ${secret}` },
    });
    events[0] = { ...started, payload: { ...started.payload, fleet: leaky as never } };
    const id = store.addSession({}, events);
    for (const format of ['json', 'md', 'html', 'otlp'] as const) {
      const path = join(dir, `secret.${format}`);
      await exportSession(store, id, format, path, { env: { SAMPLE_OPENAI_KEY: secret } });
      const text = readFileSync(path, 'utf8');
      expect(text, format).not.toContain(secret);
      expect(text, format).not.toMatch(/"apiKey"|Authorization/);
    }
    expect(readFileSync(join(dir, 'secret.json'), 'utf8')).toContain('"apiKeyEnv":"SAMPLE_OPENAI_KEY"');
  });
});

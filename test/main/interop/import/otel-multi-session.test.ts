import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src-main/cli/main';
import { importFile } from '../../../../src-main/interop/import';
import type { ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import { captureIo } from '../../../helpers/cli-io';
import { makeTempDir } from '../../../helpers/temp-dir';
import { openTempHistory } from '../../../helpers/temp-store';

const temps: Array<{ remove(): void }> = [];
const histories: Array<ReturnType<typeof openTempHistory>> = [];
afterEach(() => {
  histories.splice(0).forEach((history) => history.cleanup());
  temps.splice(0).forEach((temp) => temp.remove());
});

function history() {
  const opened = openTempHistory();
  histories.push(opened);
  return opened;
}

function file(name: string, value: unknown): string {
  const temp = makeTempDir('fleetscope-otel-multi-');
  temps.push(temp);
  const path = join(temp.dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

const BASE_NS = BigInt(Date.UTC(2026, 2, 3, 9, 0, 0)) * 1_000_000n;
let nextSpan = 1;

interface ChatTurn {
  traceId: string;
  conversation: string | null;
  /** Seconds after BASE at which the span starts. */
  at: number;
  question: string;
  answer: string;
}

/** A GenAI `chat` span as the semantic conventions describe it (structured messages). */
function chatSpan(turn: ChatTurn) {
  const start = BASE_NS + BigInt(turn.at) * 1_000_000_000n;
  const attributes = [
    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
    { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
    { key: 'gen_ai.agent.name', value: { stringValue: 'helper' } },
    {
      key: 'gen_ai.input.messages',
      value: {
        stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: turn.question }] }]),
      },
    },
    {
      key: 'gen_ai.output.messages',
      value: {
        stringValue: JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: turn.answer }], finish_reason: 'stop' },
        ]),
      },
    },
  ];
  if (turn.conversation !== null) {
    attributes.push({ key: 'gen_ai.conversation.id', value: { stringValue: turn.conversation } });
  }
  return {
    traceId: turn.traceId,
    spanId: (nextSpan++).toString(16).padStart(16, '0'),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000_000n),
    attributes,
    status: {},
  };
}

/** An OTLP/JSON export request, as the OTLP file exporters and collectors write it. */
function otlpFile(turns: ChatTurn[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-bot' } }] },
        scopeSpans: [{ scope: { name: 'test.genai' }, spans: turns.map(chatSpan) }],
      },
    ],
  };
}

const TRACE = (n: number) => n.toString(16).padStart(32, '0');

/**
 * Conversation "alpha" spans two traces (one per turn), "beta" one trace; a last trace has no
 * conversation id. Their turns interleave in time, so grouping cannot follow the file's order.
 */
const TURNS: ChatTurn[] = [
  { traceId: TRACE(1), conversation: 'alpha', at: 0, question: 'alpha q1', answer: 'alpha a1' },
  { traceId: TRACE(3), conversation: 'beta', at: 1, question: 'beta q1', answer: 'beta a1' },
  { traceId: TRACE(2), conversation: 'alpha', at: 2, question: 'alpha q2', answer: 'alpha a2' },
  { traceId: TRACE(3), conversation: 'beta', at: 3, question: 'beta q2', answer: 'beta a2' },
  { traceId: TRACE(3), conversation: 'beta', at: 4, question: 'beta q3', answer: 'beta a3' },
  { traceId: TRACE(4), conversation: null, at: 5, question: 'lone q1', answer: 'lone a1' },
];

function texts(store: ReturnType<typeof openTempHistory>['store'], sessionId: string): string[] {
  return store
    .pageMessages(sessionId, { from: 'start', limit: 100 })
    .items.filter((message) => message.kind === 'text')
    .map((message) => message.content);
}

function sessionCount(store: ReturnType<typeof openTempHistory>['store']): number {
  return store.listSessions({}).total;
}

describe('a trace file holding several conversations', () => {
  it('imports one session per conversation, and one per trace with no conversation id', async () => {
    const { store } = history();
    const path = file('traces.json', otlpFile(TURNS));
    const result = await importFile(path, store);

    expect(result.format).toBe('otlp-json');
    expect(result.sessionIds).toHaveLength(3);
    expect(new Set(result.sessionIds).size).toBe(3);
    expect(sessionCount(store)).toBe(3);
    const [alpha, beta, lone] = result.sessionIds as [string, string, string];
    expect(texts(store, alpha)).toEqual(['alpha q1', 'alpha a1', 'alpha q2', 'alpha a2']);
    expect(texts(store, beta)).toEqual(['beta q1', 'beta a1', 'beta q2', 'beta a2', 'beta q3', 'beta a3']);
    expect(texts(store, lone)).toEqual(['lone q1', 'lone a1']);
    // The first session listed is the largest; the count covers every session.
    expect(result.sessionId).toBe(beta);
    expect(result.messageCount).toBe(12);
    expect(result.sessions.map((session) => session.messageCount)).toEqual([4, 6, 2]);
    for (const id of result.sessionIds) {
      const summary = store.getSession(id)?.summary;
      expect(summary).toMatchObject({ status: 'completed', readOnly: true, source: 'otlp-json' });
    }
    expect(store.getSession(beta)?.summary.task).toBe('beta q1');
  });

  it('imports a file with one conversation as one session, as before', async () => {
    const { store } = history();
    const path = file('one.json', otlpFile(TURNS.filter((turn) => turn.conversation === 'alpha')));
    const result = await importFile(path, store);
    expect(result.sessionIds).toEqual([result.sessionId]);
    expect(result.messageCount).toBe(4);
    expect(sessionCount(store)).toBe(1);
    expect(texts(store, result.sessionId)).toEqual(['alpha q1', 'alpha a1', 'alpha q2', 'alpha a2']);
  });

  it('groups the lines of a collector JSON Lines file the same way', async () => {
    const { store } = history();
    const lines = TURNS.map((turn) => JSON.stringify(otlpFile([turn]))).join('\n');
    const result = await importFile(file('traces.jsonl', `${lines}\n`), store);
    expect(result.sessions.map((session) => session.messageCount)).toEqual([4, 6, 2]);
    expect(texts(store, result.sessionIds[2] as string)).toEqual(['lone q1', 'lone a1']);
  });

  it('leaves no session behind when writing fails in the last session', async () => {
    const { store } = history();
    const path = file('traces.json', otlpFile(TURNS));
    let begun = 0;
    const failing: SessionWriter = {
      importSession: (meta, events) => store.importSession(meta, events),
      beginImport: (meta): ImportInProgress => {
        const inner = store.beginImport(meta);
        const index = begun++;
        return {
          sessionId: inner.sessionId,
          append: (events) => {
            if (index === 2) throw new Error('disk full (simulated)');
            inner.append(events);
          },
          finish: () => inner.finish(),
          abort: () => inner.abort(),
        };
      },
    };
    await expect(importFile(path, failing)).rejects.toThrow('disk full');
    expect(begun).toBe(3);
    expect(sessionCount(store)).toBe(0);
  });

  it('stores nothing when the file is refused', async () => {
    const { store } = history();
    const broken = otlpFile(TURNS);
    const spans = broken.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    const last = spans[spans.length - 1];
    if (last) last.startTimeUnixNano = 'not a time';
    await expect(importFile(file('broken.json', broken), store)).rejects.toThrow(/span/);
    expect(sessionCount(store)).toBe(0);
  });

  it('prints one line per session from fleetscope import', async () => {
    const temp = makeTempDir('fleetscope-otel-multi-cli-');
    temps.push(temp);
    const io = captureIo();
    const path = file('traces.json', otlpFile(TURNS));
    expect(await runCli(['import', path, '--data-dir', join(temp.dir, 'store')], io)).toBe(0);
    expect(io.stdout).toHaveLength(3);
    expect(io.stdout.map((line) => line.split('\t').slice(1))).toEqual([
      ['otlp-json', '4 messages'],
      ['otlp-json', '6 messages'],
      ['otlp-json', '2 messages'],
    ]);
  });
});

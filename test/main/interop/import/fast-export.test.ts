import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TransferError, importFile } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import type { ImportedEvent, ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import { ExportStream } from '../../../../src-main/interop/import/fleetscope-stream';
import { FastPathDeclined } from '../../../../src-main/interop/import/json-splitter';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../../src-main/interop/import/limits';
import { openImportPlan } from '../../../../src-main/interop/import/plan-import';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';
import { openTempHistory } from '../../../helpers/temp-store';
import { sampleEvents } from '../export/sample-session';

const temp = makeTempDir('fleetscope-fast-export-');
afterAll(() => temp.remove());
let files = 0;
const write = (text: string | Buffer) => {
  const path = join(temp.dir, `file-${++files}.json`);
  writeFileSync(path, text);
  return path;
};

/** Text that trips a careless splitter: quotes, backslashes, brackets, commas, non-ASCII. */
const TRICKY = [
  'plain',
  'a "quoted" word, then [brackets] and {braces}',
  'ends in a backslash \\',
  'two backslashes then a quote \\\\"',
  '\\" at the start',
  'tab\tnewline\ncontrol \u0001 and nul \u0000',
  'CJK 漢字, emoji 🧪, accents é, a lone surrogate \ud800',
  '}],{"kind":"error"}',
];

async function exportText(messages: number, content?: (index: number) => string): Promise<string> {
  const store = new MemorySessions();
  const id = store.addSession({ title: 'Fast' }, [...sampleEvents(messages, content)]);
  const path = join(temp.dir, `export-${++files}.json`);
  await exportSession(store, id, 'json', path);
  return readFileSync(path, 'utf8');
}

/** Every event the fast reader hands out; throws FastPathDeclined if it declines. */
function fastEvents(path: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportedEvent[] {
  const stream = ExportStream.open(path, limits);
  if (!stream) throw new Error('not opened by the fast reader');
  const events: ImportedEvent[] = [];
  try {
    for (;;) {
      const batch = stream.next(97);
      events.push(...batch.events);
      if (batch.done) return events;
    }
  } finally {
    stream.close();
  }
}

/** Every event the exact (token by token) reader produces. */
function exactEvents(path: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportedEvent[] {
  const opened = openImportPlan(path, 0, limits);
  try {
    return [...(opened.plan.sessions[0]?.events ?? [])];
  } finally {
    opened.close();
  }
}

let tricky: string;
beforeAll(async () => {
  // Over 1 MB: events and strings also straddle the reader's 1 MB chunks.
  tricky = await exportText(4_000, (index) => `${TRICKY[index % TRICKY.length]} #${index}`);
});

describe('our export read by the fast reader', () => {
  it('gives exactly the events of the exact reader, whatever the content and the layout', () => {
    const value = JSON.parse(tricky) as Record<string, unknown>;
    const layouts = {
      asExported: tricky,
      pretty: JSON.stringify(value, null, 2),
      tabsAndCrlf: JSON.stringify(value, null, '\t').replace(/\n/g, '\r\n'),
      oneLine: JSON.stringify(value),
      laterKeys: `${tricky.trimEnd().slice(0, -1)},"messages":[{"a":"]}"}],"x":{"y":[1,2,{}]}}\n`,
    };
    for (const [layout, text] of Object.entries(layouts)) {
      const path = write(text);
      const fast = fastEvents(path);
      expect(fast.length, layout).toBeGreaterThan(8_000);
      expect(fast, layout).toEqual(exactEvents(path));
    }
  });

  it('streams an export with no events, and leaves files that are not ours to the exact reader', () => {
    const empty = write(
      '{"format":"fleetscope-session","version":1,"session":{"title":"t","task":"t","fleetName":"f","createdAt":0},"events":[ ]}',
    );
    expect(fastEvents(empty)).toEqual([]);
    for (const other of [
      '{"messages":[{"role":"user","content":"hi"}]}',
      '[{"source":"user","content":"hi"}]',
      // Ours, but `events` before the header: read whole by the exact reader.
      '{"events":[],"format":"fleetscope-session","version":1,"session":{}}',
      'plain text',
    ]) {
      expect(ExportStream.open(write(other), DEFAULT_IMPORT_LIMITS), other).toBeNull();
    }
  });

  it('reads an event longer than one read of the file', async () => {
    const huge = (index: number) =>
      index === 3 ? `${'\\"'.repeat(200_000)}${'🧪'.repeat(100_000)}` : `m ${index}`;
    const path = write(await exportText(20, huge));
    const fast = fastEvents(path);
    expect(fast).toEqual(exactEvents(path));
    const contents = fast.flatMap((event) =>
      event.kind === 'message.completed' ? [event.payload.message.content] : [],
    );
    expect(contents[3]?.length).toBe(600_000);
  });

  it('holds only a few batches: an export far larger than the thread may hold streams through', async () => {
    const path = write(await exportText(40_000));
    const store = new MemorySessions();
    const result = await importFile(path, store, { limits: { workerHeapMb: 48 } });
    expect(result.messageCount).toBe(40_000);
    expect(store.sessions.get(result.sessionId)?.events.length).toBe(exactEvents(path).length);
  }, 60_000);

  it('declines an event larger than a 32nd of the held-memory limit, and the import still takes it', async () => {
    const limits = { ...DEFAULT_IMPORT_LIMITS, maxHeldBytes: 256 * 1024 };
    const big = (index: number) => (index === 150 ? 'y'.repeat(20_000) : `message ${index}`);
    const path = write(await exportText(300, big));
    expect(() => fastEvents(path, limits)).toThrow(FastPathDeclined);

    const store = new MemorySessions();
    const result = await importFile(path, store, { limits });
    expect(result.messageCount).toBe(300);
    const stored = store.sessions.get(result.sessionId)?.events ?? [];
    const strip = ({ t, agent, kind, payload }: ImportedEvent) => ({ t, agent, kind, payload });
    expect(stored.map(strip)).toEqual(exactEvents(path, limits).map(strip));
  });
});

/** The store's batch writer, logging every append and finish. */
function logged(store: SessionWriter, log: string[]): SessionWriter {
  return {
    importSession: (meta, events) => store.importSession(meta, events),
    beginImport: (meta): ImportInProgress => {
      const inner = store.beginImport(meta);
      return {
        sessionId: inner.sessionId,
        append: (events) => {
          log.push('append');
          inner.append(events);
        },
        finish: () => {
          log.push('finish');
          return inner.finish();
        },
        abort: () => {
          log.push('abort');
          inner.abort();
        },
      };
    },
  };
}

describe('a streamed export refused part-way', () => {
  let big: string;
  beforeAll(async () => {
    big = await exportText(3_000);
  });

  /** `big` with its last handoff event replaced by `replacement`. */
  const spoilLate = (replacement: string) => {
    const at = big.lastIndexOf('{"seq":', big.lastIndexOf('"kind":"handoff"'));
    const end = big.indexOf('\n', at);
    return big.slice(0, at) + replacement + big.slice(end - 1);
  };

  const cases: Array<{
    name: string;
    text: () => string | Buffer;
    limits?: Partial<ImportLimits>;
    error: RegExp;
  }> = [
    {
      name: 'nesting deeper than the limit',
      text: () =>
        spoilLate(`{"t":1,"agent":null,"kind":"error","payload":${'['.repeat(70)}${']'.repeat(70)}}`),
      error: /^The file nests deeper than 64 levels at line \d+, column \d+ \(byte \d+\)\.$/,
    },
    {
      name: 'a string over the limit',
      text: () => spoilLate(`{"t":1,"agent":null,"kind":"error","payload":{"code":"${'z'.repeat(5000)}"}}`),
      limits: { maxStringLength: 4096 },
      error: /^The string at line \d+, column \d+ \(byte \d+\) is longer than 4,096 characters/,
    },
    {
      name: 'a number too long to be one',
      text: () => spoilLate(`{"t":${'1'.repeat(70 * 1024)},"agent":null}`),
      // Refused as too long when it spans two of the exact reader's slices, else as not finite.
      error: /(^The number at line \d+, column \d+ \(byte \d+\) is longer than 64 KB\.$)|(\.t: .*Infinity)/,
    },
    {
      name: 'bytes that are not UTF-8',
      text: () => {
        const text = spoilLate('{"t":1,"agent":null,"kind":"error","payload":{"code":"@@","message":"m"}}');
        const bytes = Buffer.from(text);
        bytes[text.indexOf('@@')] = 0xff;
        return bytes;
      },
      error: /not valid UTF-8/,
    },
    {
      name: 'an event of no known kind',
      text: () => spoilLate('{"t":1,"agent":null,"kind":"x","payload":{}}'),
      error: /^Invalid file at \$\.events\[\d+\]/,
    },
    {
      name: 'a missing comma',
      text: () => spoilLate('{"t":1} {"t":2}'),
      error: /^Malformed JSON at line \d+, column \d+ \(byte \d+\)/,
    },
  ];

  for (const { name, text, limits, error } of cases) {
    it(`refuses ${name} with the exact reader's message, after writing, and keeps nothing`, async () => {
      const history = openTempHistory();
      try {
        const path = write(text());
        const exact = (() => {
          try {
            exactEvents(path, { ...DEFAULT_IMPORT_LIMITS, ...limits });
          } catch (reason) {
            return reason;
          }
          return null;
        })();
        expect(exact).toBeInstanceOf(TransferError);
        const log: string[] = [];
        const caught = await importFile(path, logged(history.store, log), { limits }).catch(
          (reason: unknown) => reason,
        );
        expect(caught).toBeInstanceOf(TransferError);
        expect((caught as TransferError).message).toMatch(error);
        expect((caught as TransferError).message).toBe((exact as TransferError).message);
        // Streamed: batches were written before the refusal came, then all deleted.
        expect(log.filter((entry) => entry === 'append').length).toBeGreaterThan(1);
        expect(log.at(-1)).toBe('abort');
        const count = (table: string) =>
          (history.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        expect([count('sessions'), count('events'), count('messages'), count('checkpoints')]).toEqual([
          0, 0, 0, 0,
        ]);
        expect(history.store.listSessions({ search: 'item' }).total).toBe(0);
      } finally {
        history.cleanup();
      }
    });
  }
});

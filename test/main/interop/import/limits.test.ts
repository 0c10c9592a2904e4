import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransferError, importFile, type ImportOptions } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { openTempHistory } from '../../../helpers/temp-store';
import { sampleEvents } from '../export/sample-session';
import { readTraceLines } from '../../../../src-main/interop/span-mapping/trace-lines';
import { DEFAULT_IMPORT_LIMITS } from '../../../../src-main/interop/import/limits';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-import-limits-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function write(text: string | Buffer): string {
  const path = join(dir, `input-${++files}.json`);
  writeFileSync(path, text);
  return path;
}

/** Imports and expects a refusal that stored nothing; returns the error. */
async function refuse(text: string | Buffer, options: ImportOptions = {}): Promise<TransferError> {
  const store = new MemorySessions();
  const error = await importFile(write(text), store, options).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TransferError);
  expect(store.sessions.size).toBe(0);
  return error as TransferError;
}

function openAiMessages(count: number): string {
  const messages = Array.from({ length: count }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i}`,
  }));
  return JSON.stringify({ messages });
}

async function exportedJson(messages: number): Promise<string> {
  const store = new MemorySessions();
  const id = store.addSession({}, [...sampleEvents(messages)]);
  const path = join(dir, `export-${++files}.json`);
  await exportSession(store, id, 'json', path);
  return readFileSync(path, 'utf8');
}

describe('import limits: hostile input fails early with a clear error and stores nothing', () => {
  it('refuses arrays nested deeper than 64 levels, naming line, column and byte', async () => {
    const error = await refuse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(error.code).toBe('invalid-input');
    expect(error.message).toBe('The file nests deeper than 64 levels at line 1, column 65 (byte 64).');
  });

  it('refuses objects nested deeper than 64 levels inside an otherwise valid export', async () => {
    const nested = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const text = (await exportedJson(3)).replace('"task":', `"deep":${nested},"task":`);
    const error = await refuse(text);
    expect(error.message).toMatch(
      /^The file nests deeper than 64 levels at line \d+, column \d+ \(byte \d+\)\.$/,
    );
  });

  it('counts dense JSON by the memory it takes, not its length', async () => {
    const limits = { maxHeldBytes: 1024 * 1024 };
    // 60 KB of empty objects needs over 1 MB as values; 600 KB of real messages does not.
    expect((await refuse(`[${'{},'.repeat(20_000)}{}]`, { limits })).code).toBe('too-large');
    const store = new MemorySessions();
    const messages = Array.from({ length: 60 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: 'x'.repeat(10_000),
    }));
    const result = await importFile(write(JSON.stringify(messages)), store, { limits });
    expect(result.messageCount).toBe(60);
  });

  it('refuses a 10 MB unclosed nesting payload at the depth limit, not at its end', async () => {
    const error = await refuse(Buffer.alloc(10 * 1024 * 1024, '['));
    expect(error.message).toBe('The file nests deeper than 64 levels at line 1, column 65 (byte 64).');
  });

  it('refuses unclosed JSON, saying it ends early and what is still open', async () => {
    const text = `{"messages": [${'{"role": "user", "content": "hi"},'.repeat(1000)}`;
    const error = await refuse(text);
    expect(error.code).toBe('invalid-input');
    expect(error.message).toBe(
      `The JSON ends before it is complete at line 1, column ${text.length + 1} (byte ${text.length}): 2 arrays or objects are still open, the innermost from line 1, column 14 (byte 13).`,
    );
  });

  it('refuses an unclosed string and a cut-off number at the end of the file', async () => {
    expect((await refuse('{"a": "never closed')).message).toMatch(
      /^The JSON ends before it is complete at line 1, column 20 \(byte 19\): a string is not closed\.$/,
    );
    expect((await refuse('[1, 2, -')).message).toMatch(/ends before it is complete .*: a number is cut off/);
  });

  it('names the unexpected character and the expected token in malformed JSON', async () => {
    expect((await refuse('[1, 2 x]')).message).toBe(
      "Malformed JSON at line 1, column 7 (byte 6): unexpected character 'x'.",
    );
    expect((await refuse('{"a" 1}')).message).toBe(
      "Malformed JSON at line 1, column 6 (byte 5): expected ':' but found a number.",
    );
    expect((await refuse('[1,]')).message).toBe(
      "Malformed JSON at line 1, column 4 (byte 3): expected a value but found ']'.",
    );
    expect((await refuse('{"a": [1}')).message).toMatch(/expected ',' or '\]' but found '\}'/);
  });

  it('refuses text that is not UTF-8', async () => {
    const error = await refuse(
      Buffer.concat([Buffer.from('["caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"]')]),
    );
    expect(error.message).toMatch(/not valid UTF-8/);
  });

  it('refuses a string longer than the limit, naming where it starts', async () => {
    const text = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    const error = await refuse(text, { limits: { maxStringLength: 4096 } });
    expect(error.code).toBe('too-large');
    expect(error.message).toBe(
      `The string at line 1, column ${text.indexOf('"xxx') + 1} (byte ${text.indexOf('"xxx')}) is longer than 4,096 characters, the most one string may hold.`,
    );
  });

  it('stops reading a huge string or number while it grows, not after', async () => {
    // 40 MB in one unclosed string: refused at the limit, long before the end of the file.
    const string = await refuse(`["${'x'.repeat(40 * 1024 * 1024)}`, {
      limits: { maxStringLength: 1024 * 1024 },
    });
    expect(string.message).toMatch(
      /^The string at line 1, column 2 \(byte 1\) is longer than 1,048,576 characters/,
    );
    const number = await refuse(`[${'1'.repeat(200 * 1024)}]`);
    expect(number.message).toBe('The number at line 1, column 2 (byte 1) is longer than 64 KB.');
  });

  it('refuses a file over the size limit before parsing it', async () => {
    const error = await refuse(openAiMessages(50), { limits: { maxFileBytes: 100 } });
    expect(error.code).toBe('too-large');
    expect(error.message).toMatch(/ is 2 KB; the largest file an import accepts is 100 bytes\.$/);
  });

  it('reads other formats whole only up to maxHeldBytes, but streams its own export of any length', async () => {
    const limits = { maxHeldBytes: 64 * 1024 };
    const error = await refuse(openAiMessages(1_000), { limits });
    expect(error.code).toBe('too-large');
    expect(error.message).toMatch(
      /^The JSON at \$\.messages is too large to read whole: it needs more than 64 KB of memory \(reached at byte \d+\)/,
    );

    const store = new MemorySessions();
    const exported = write(await exportedJson(1_000));
    const result = await importFile(exported, store, { limits });
    expect(result.messageCount).toBe(1_000);
  });

  it('refuses more messages or events than one session may import', async () => {
    const messages = await refuse(await exportedJson(120), { limits: { maxMessages: 100 } });
    expect(messages.code).toBe('too-large');
    expect(messages.message).toBe('The file holds more than 100 messages, the most one session may import.');
    const events = await refuse(openAiMessages(60), { limits: { maxEvents: 100 } });
    expect(events.message).toBe('The file holds more than 100 events, the most one session may import.');
  });

  it('leaves a real store unchanged: no session, event, message or search row', async () => {
    const history = openTempHistory();
    try {
      const late = (await exportedJson(400)).replace(
        /"kind":"handoff"(?![\s\S]*"kind":"handoff")/,
        '"kind":"x"',
      );
      for (const text of [
        `${'['.repeat(100)}`,
        `{"messages": [${'{"role": "user", "content": "hi"},'.repeat(500)}`,
        late,
      ]) {
        const error = await importFile(write(text), history.store).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(TransferError);
      }
      const count = (table: string) =>
        (history.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect([count('sessions'), count('events'), count('messages'), count('checkpoints')]).toEqual([
        0, 0, 0, 0,
      ]);
    } finally {
      history.cleanup();
    }
  });
});

describe('a deeply nested single-line file', () => {
  it('is never handed to JSON.parse as an OTLP JSON Lines file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetscope-deep-'));
    const path = join(dir, 'deep.json');
    writeFileSync(path, `{"a":${'['.repeat(200_000)}\n{"resourceSpans":[]}\n`);
    expect(readTraceLines(path, DEFAULT_IMPORT_LIMITS)).toBeNull();
    rmSync(dir, { recursive: true, force: true });
  });
});

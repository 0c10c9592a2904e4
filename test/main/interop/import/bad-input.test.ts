import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TransferError, importFile } from '../../../../src-main/interop/import';
import { exportSession } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from '../export/sample-session';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Imports `text` and expects a refusal that stored nothing; returns the error. */
async function refuse(text: string | Buffer, name = 'input.json'): Promise<TransferError> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const store = new MemorySessions();
  const error = await importFile(path, store).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TransferError);
  expect(store.sessions.size).toBe(0);
  return error as TransferError;
}

describe('import refuses bad input and names the position', () => {
  it('refuses the Python-repr TeamState under invalid/ at line 2, column 5', async () => {
    const error = await refuse(
      readFileSync(join(REAL, 'invalid/autogen-teamstate-python-repr-essaywriter.json.txt')),
    );
    expect(error.code).toBe('invalid-input');
    expect(error.message).toMatch(/line 2, column 5/);
  });

  it('refuses malformed JSON with line and column', async () => {
    const error = await refuse(
      '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant" "content": "x"}\n]',
    );
    expect(error.message).toMatch(/Malformed JSON at line 3, column 24/);
  });

  it('refuses a truncated file', async () => {
    const error = await refuse('[{"source": "user", "type": "TextMessage", "content": "hel');
    expect(error.code).toBe('invalid-input');
    expect(error.message).toMatch(/line 1, column \d+/);
  });

  it('refuses an empty file and a whitespace-only file', async () => {
    expect((await refuse('')).message).toMatch(/empty \(0 bytes at offset 0\)/);
    expect((await refuse('  \n ')).message).toMatch(/line 2, column 2 .*: expected a value/);
  });

  it('refuses foreign JSON, saying what it found', async () => {
    const error = await refuse('{"name": "left-pad", "version": "1.3.0"}');
    expect(error.message).toMatch(/Unrecognized file at \$.*"name", "version"/);
    expect((await refuse('[]')).message).toMatch(/empty list at \$/);
    expect((await refuse('"just a string"')).message).toMatch(/at \$: expected an object or an array/);
  });

  it('refuses a message of the right format with a wrong field, naming its JSON path', async () => {
    const error = await refuse(
      JSON.stringify([
        { source: 'user', type: 'TextMessage', content: 'hi' },
        { source: 'a', type: 'ToolCallRequestEvent', content: [{ id: 'c1', name: 'f', arguments: 7 }] },
      ]),
    );
    expect(error.message).toMatch(/at \$\[1\]\.content\[0\]\.arguments/);
  });

  it('refuses an OpenAI message with an unknown role at its path', async () => {
    const error = await refuse(
      JSON.stringify({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'robot', content: 'y' },
        ],
      }),
    );
    expect(error.message).toMatch(/\$\.messages\[1\]\.role/);
  });

  it('says not-found for a missing file', async () => {
    const error = await importFile(join(dir, 'nope.json'), new MemorySessions()).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'not-found' });
  });

  describe('a Fleetscope export that goes bad after streaming has begun', () => {
    async function exported(): Promise<string> {
      const store = new MemorySessions();
      const id = store.addSession({}, [...sampleEvents(300)]);
      const path = join(dir, 'good.json');
      await exportSession(store, id, 'json', path);
      return readFileSync(path, 'utf8');
    }

    it('imports nothing when the file is cut off in the middle of the events', async () => {
      const text = await exported();
      const error = await refuse(text.slice(0, Math.floor(text.length * 0.8)));
      expect(error.message).toMatch(
        /The JSON ends before it is complete at line \d+, column \d+ \(byte \d+\)/,
      );
    });

    it('imports nothing when one late event is invalid, and names it by path', async () => {
      const text = (await exported()).replace('"kind":"handoff"', '"kind":"teleport"');
      const error = await refuse(text);
      expect(error.message).toMatch(/Invalid file at \$\.events\[\d+\]/);
    });

    it('refuses a newer format version', async () => {
      const error = await refuse((await exported()).replace('"version":1', '"version":2'));
      expect(error.message).toMatch(/\$\.version.*version 1, the file has 2/);
    });

    it('imports nothing when trailing garbage follows the document', async () => {
      const error = await refuse(`${await exported()}{}`);
      expect(error.message).toMatch(/line \d+, column \d+|unexpected/);
    });
  });

  it('reports progress in bytes up to the file size', async () => {
    const path = join(REAL, 'autogen-teamstate-3agents-tools-boano.json');
    const seen: Array<[number, number]> = [];
    await importFile(path, new MemorySessions(), { onProgress: (done, total) => seen.push([done, total]) });
    const size = readFileSync(path).length;
    expect(seen.at(-1)).toEqual([size, size]);
    expect(seen.every(([done, total]) => done <= total && total === size)).toBe(true);
  });
});

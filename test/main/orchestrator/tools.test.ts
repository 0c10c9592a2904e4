import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBuiltinTools, evaluateExpression } from '../../../src-main/orchestrator';

const context = (fileRoot: string | null = null) => ({ signal: new AbortController().signal, fileRoot });

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['-2 ^ 2', -4],
    ['2 ^ 3 ^ 2', 512],
    ['sqrt(16) + max(1, 5, 3)', 9],
    ['10 % 4', 2],
    ['round(pi * 100) / 100', 3.14],
    ['1.5e3 / 3', 500],
  ])('%s = %d', (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it.each([
    ['process.exit(1)', /unknown name|unexpected/],
    ['1 +', /ended too early/],
    ['(1 + 2', /closing parenthesis/],
    ['1 / 0', /not a finite number/],
    ['constructor', /unknown name/],
    ['toString(1)', /unknown name/],
  ])('refuses %s', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(message);
  });
});

describe('built-in tools', () => {
  it('gives the current time in a zone and refuses unknown zones', async () => {
    const tools = createBuiltinTools();
    const ok = await tools.invoke(
      { id: '1', name: 'current_time', arguments: '{"timeZone":"Europe/Paris"}' },
      context(),
    );
    expect(ok.isError).toBe(false);
    expect(ok.content).toMatch(/^\d{4}-\d{2}-\d{2}T.*Europe\/Paris/);
    const bad = await tools.invoke(
      { id: '2', name: 'current_time', arguments: '{"timeZone":"Mars/Base"}' },
      context(),
    );
    expect(bad).toMatchObject({ isError: true });
  });

  it('reads inside the folder and refuses escapes, absolute paths and symlinks out', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fleetscope-root-'));
    const outside = mkdtempSync(join(tmpdir(), 'fleetscope-outside-'));
    writeFileSync(join(root, 'a.txt'), 'inside');
    writeFileSync(join(outside, 'b.txt'), 'outside');
    symlinkSync(join(outside, 'b.txt'), join(root, 'link.txt'));
    const tools = createBuiltinTools();
    const read = (path: string) =>
      tools.invoke({ id: 'x', name: 'read_file', arguments: JSON.stringify({ path }) }, context(root));
    expect(await read('a.txt')).toMatchObject({ content: 'inside', isError: false });
    expect((await read('../' + outside.split('/').pop() + '/b.txt')).content).toContain(
      'outside the shared folder',
    );
    expect((await read(join(outside, 'b.txt'))).content).toContain('relative');
    expect((await read('link.txt')).content).toContain('outside the shared folder');
    expect((await read('missing.txt')).isError).toBe(true);
  });

  it('refuses to read files when no folder was shared', async () => {
    const result = await createBuiltinTools().invoke(
      { id: 'x', name: 'read_file', arguments: '{"path":"a"}' },
      context(null),
    );
    expect(result).toMatchObject({ isError: true, content: 'Error: no folder was shared for reading files' });
  });
});

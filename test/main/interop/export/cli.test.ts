import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../../src-main/cli/main';
import type { CliIO } from '../../../../src-main/cli/command';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(): CliIO & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (text) => lines.push(text),
    err: (text) => errors.push(text),
    env: { ...process.env, FLEETSCOPE_DATA_DIR: dir },
    interrupted: new Promise<void>(() => undefined),
  };
}

describe('fleetscope import / export', () => {
  it('imports a file, printing the session id, format and message count, then exports it', async () => {
    const imported = io();
    const file = join(REAL, 'openai-messages-swarm-handoffs-swarmjs.json');
    expect(await runCli(['import', file, '--data-dir', dir], imported)).toBe(0);
    const [sessionId, format, count] = imported.lines[0]?.split('\t') ?? [];
    expect(format).toBe('openai-messages');
    expect(count).toBe('14 messages');

    const target = join(dir, 'out.md');
    const exported = io();
    expect(
      await runCli(['export', sessionId ?? '', '--format', 'md', '-o', target, '--data-dir', dir], exported),
    ).toBe(0);
    expect(readFileSync(target, 'utf8')).toContain('**↪ Handoff** triage → inventory');
  });

  it('writes to stdout without -o', async () => {
    const imported = io();
    await runCli(
      ['import', join(REAL, 'autogen-history-tools-rajesh-nitc.json'), '--data-dir', dir],
      imported,
    );
    const sessionId = imported.lines[0]?.split('\t')[0] ?? '';
    const chunks: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    });
    try {
      expect(await runCli(['export', sessionId, '--format', 'json', '--data-dir', dir], io())).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(JSON.parse(chunks.join(''))).toMatchObject({ format: 'fleetscope-session', version: 1 });
  });

  it('refuses a bad file and an unwritable output with exit code 1 and a clear message', async () => {
    const bad = io();
    const invalid = join(REAL, 'invalid/autogen-teamstate-python-repr-essaywriter.json.txt');
    expect(await runCli(['import', invalid, '--data-dir', dir], bad)).toBe(1);
    expect(bad.errors[0]).toMatch(/Malformed JSON at line 2, column 5/);

    const imported = io();
    await runCli(
      ['import', join(REAL, 'autogen-teamstate-2writers-samreen.json'), '--data-dir', dir],
      imported,
    );
    const sessionId = imported.lines[0]?.split('\t')[0] ?? '';
    const failing = io();
    const target = join(dir, 'no', 'such', 'folder', 'out.html');
    expect(
      await runCli(['export', sessionId, '--format', 'html', '-o', target, '--data-dir', dir], failing),
    ).toBe(1);
    expect(failing.errors[0]).toMatch(/Could not write .*out\.html/);
    expect(existsSync(target)).toBe(false);
  });

  it('rejects an unknown format as a usage error', async () => {
    const result = io();
    expect(await runCli(['export', 'abc', '--format', 'pdf', '--data-dir', dir], result)).toBe(2);
    expect(result.errors[0]).toMatch(/--format must be one of json, md, html, otlp/);
  });
});

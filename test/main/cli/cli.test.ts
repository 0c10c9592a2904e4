import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';

describe('the fleetscope command', () => {
  const temps: Array<ReturnType<typeof makeTempDir>> = [];
  afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

  it('lists its commands with --help and exits 0', async () => {
    const io = captureIo();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.stdout.join('\n')).toMatch(/Usage: fleetscope <command>/);
    expect(io.stdout.join('\n')).toMatch(/serve\s+Run the app in your browser/);
  });

  it('exits 2 and shows help for an unknown command', async () => {
    const io = captureIo();
    expect(await runCli(['frobnicate'], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('Unknown command "frobnicate"');
  });

  it('exits 2 naming the problem for a bad serve option', async () => {
    const io = captureIo();
    expect(await runCli(['serve', '--port', 'eighty'], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('--port must be a whole number');
    const unknown = captureIo();
    expect(await runCli(['serve', '--colour', 'red'], unknown)).toBe(2);
    expect(unknown.stderr.join('\n')).toMatch(/colour/);
  });

  it('serve prints the URL with its token, uses --data-dir, and stops on Ctrl+C', async () => {
    const temp = makeTempDir();
    temps.push(temp);
    const rendererDir = join(temp.dir, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
    const io = captureIo();
    const exit = runCli(['serve', '--data-dir', join(temp.dir, 'data'), '--renderer-dir', rendererDir], io);
    // serve seeds the sample sessions before it prints: slow on a loaded machine.
    await expect.poll(() => io.stdout.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const match = /^Fleetscope is running at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=[\w-]+)$/.exec(
      io.stdout[0] ?? '',
    );
    expect(match).not.toBeNull();
    const response = await fetch(match![1]!);
    expect(response.status).toBe(200);
    expect(io.stdout[1]).toContain(join(temp.dir, 'data'));
    io.interrupt();
    expect(await exit).toBe(0);
    await expect(fetch(match![1]!)).rejects.toThrow();
  }, 60_000);

  it('runs from the package bin (building on demand) with --help', () => {
    const result = spawnSync(process.execPath, ['bin/fleetscope.mjs', '--help'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: fleetscope <command>');
  }, 130_000);
});

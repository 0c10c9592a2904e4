import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORT_FORMATS } from '../../../src-main/app';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { runCliProcess } from '../../helpers/cli-process';
import { makeTempDir } from '../../helpers/temp-dir';

const REAL = fileURLToPath(new URL('../../fixtures/real/', import.meta.url));
const FILE = join(REAL, 'chatdev-bmi-calculator.log');
const root = fileURLToPath(new URL('../../../', import.meta.url));
const temp = makeTempDir('fleetscope-progress-');
afterAll(() => temp.remove());

/** A CliIO whose stderr is a terminal: status lines are kept in order (null clears). */
function terminalIo() {
  const io = captureIo();
  const statuses: Array<string | null> = [];
  return Object.assign(io, { statuses, status: (text: string | null) => void statuses.push(text) });
}

describe('progress of import and export on a terminal', () => {
  it('import shows bytes read on the status line and clears it before printing the result', async () => {
    const io = terminalIo();
    const dataDir = join(temp.dir, 'import');
    expect(await runCli(['import', FILE, '--data-dir', dataDir], io)).toBe(0);
    const shown = io.statuses.filter((status): status is string => status !== null);
    expect(shown.at(-1)).toMatch(/^Importing chatdev-bmi-calculator\.log: 100% \(0\.2 of 0\.2 MB\)$/);
    expect(io.statuses.at(-1)).toBeNull();
    expect(io.stdout[0]).toMatch(/^\S+\tchatdev-log\t\d+ messages$/);

    const sessionId = io.stdout[0]?.split('\t')[0] ?? '';
    const exported = terminalIo();
    const target = join(temp.dir, 'out.json');
    expect(
      await runCli(['export', sessionId, '--format', 'json', '-o', target, '--data-dir', dataDir], exported),
    ).toBe(0);
    expect(exported.statuses.filter(Boolean).at(-1)).toMatch(
      /^Exporting \S+: 100% \([\d,]+ of [\d,]+ events\)$/,
    );
    expect(exported.statuses.at(-1)).toBeNull();
    expect(existsSync(target)).toBe(true);
  });

  it('prints no progress when stderr is a pipe, and draws it in place on a real terminal', async () => {
    const piped = await runCliProcess(['import', FILE, '--data-dir', join(temp.dir, 'piped')]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('Importing');
    expect(piped.stderr).not.toContain('\r');

    // `script` gives the child a pseudo-terminal, as a person's shell would.
    const command = `${process.execPath} test/helpers/cli-child.mjs import ${FILE} --data-dir ${join(temp.dir, 'tty')}`;
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: root,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain('\rImporting chatdev-bmi-calculator.log: 100%');
    // eslint-disable-next-line no-control-regex -- the terminal escape that erases the line
    expect(tty.stdout).toMatch(/\r\x1b\[K\S+\tchatdev-log\t\d+ messages/);
  }, 90_000);

  it('import --help names every format it reads', async () => {
    const io = captureIo();
    expect(await runCli(['import', '--help'], io)).toBe(0);
    const help = io.stdout.join('\n');
    for (const format of IMPORT_FORMATS) expect(help).toContain(format);
    expect(help).toMatch(/AutoGen.*TaskResult/);
    expect(help).toContain('OpenTelemetry');
  });
});

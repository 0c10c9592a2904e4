import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { browserOpener } from '../../../src-main/cli/open-browser';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const temp = makeTempDir('fleetscope-open-');
afterAll(() => temp.remove());
const URL_WITH_TOKEN = 'http://127.0.0.1:5000/?token=a&b';

describe('npm start opens the browser where a display exists', () => {
  it('picks the platform opener, and none on Linux without a display', () => {
    expect(browserOpener(URL_WITH_TOKEN, 'linux', { DISPLAY: ':0' })).toEqual({
      command: 'xdg-open',
      args: [URL_WITH_TOKEN],
    });
    expect(browserOpener(URL_WITH_TOKEN, 'linux', { WAYLAND_DISPLAY: 'wayland-0' })?.command).toBe(
      'xdg-open',
    );
    expect(browserOpener(URL_WITH_TOKEN, 'linux', {})).toBeNull();
    expect(browserOpener(URL_WITH_TOKEN, 'darwin', {})?.command).toBe('open');
    expect(browserOpener(URL_WITH_TOKEN, 'win32', {})).toEqual({
      command: 'rundll32',
      args: ['url.dll,FileProtocolHandler', URL_WITH_TOKEN],
    });
    expect(browserOpener(URL_WITH_TOKEN, 'linux', { BROWSER: 'firefox' })?.command).toBe('firefox');
  });

  it('serve --open runs the opener with the tokened URL and still prints it', async () => {
    // A stand-in renderer: the unit tests run before any build (a fresh clone has no out/).
    const renderer = join(temp.dir, 'renderer');
    mkdirSync(renderer);
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>t</title>');
    const opened = join(temp.dir, 'opened.txt');
    // A stand-in xdg-open first on PATH: it records the URL it was given.
    const bin = join(temp.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const io = captureIo({ PATH: `${bin}:${process.env.PATH}`, DISPLAY: ':0' });
    const serving = runCli(
      ['serve', '--open', '--renderer-dir', renderer, '--data-dir', join(temp.dir, 'data')],
      io,
    );
    for (let i = 0; i < 300 && !existsSync(opened); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    io.interrupt();
    expect(await serving).toBe(0);
    const printed = /Fleetscope is running at (\S+)/.exec(io.stdout.join('\n'))?.[1];
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(readFileSync(opened, 'utf8')).toBe(printed);
    expect(io.stdout).toContain('Opening it in your browser.');

    const headless = captureIo({ PATH: process.env.PATH });
    const quiet = runCli(
      ['serve', '--open', '--renderer-dir', renderer, '--data-dir', join(temp.dir, 'data2')],
      headless,
    );
    for (let i = 0; i < 300 && headless.stdout.length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    headless.interrupt();
    expect(await quiet).toBe(0);
    expect(headless.stdout).toContain('No display here: open the address above in a browser.');
  }, 60_000);
});

describe("the README's note on install warnings", () => {
  it('names exactly the installed packages whose engines exclude this Node 20', () => {
    const semver = createRequire(join(root, 'package.json'))('semver') as {
      satisfies(version: string, range: string): boolean;
    };
    const warning = new Set<string>();
    const walk = (dir: string) => {
      if (!existsSync(dir)) return;
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.')) continue;
        const full = join(dir, name);
        if (name.startsWith('@')) {
          walk(full);
          continue;
        }
        const manifest = join(full, 'package.json');
        if (existsSync(manifest)) {
          const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
            name?: string;
            engines?: { node?: unknown };
          };
          const range = pkg.engines?.node;
          if (typeof range === 'string' && pkg.name && !semver.satisfies(process.version, range))
            warning.add(pkg.name);
        }
        walk(join(full, 'node_modules'));
      }
    };
    walk(join(root, 'node_modules'));
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const note = readme.slice(readme.indexOf('EBADENGINE'), readme.indexOf('Those warnings do not stop'));
    const named = new Set([...note.matchAll(/`([@\w./-]+)`/g)].map((match) => match[1] as string));
    // The note speaks of Node 20.19 and newer 20.x, which CI runs.
    if (process.version.startsWith('v20.') && semver.satisfies(process.version, '>=20.19')) {
      expect([...named].sort()).toEqual([...warning].sort());
    }
    expect(named.size).toBe(10);
  });
});

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { CHANNEL_NAMES } from '@shared/contract';
import { electronStatus } from '../../scripts/electron-status.mjs';
import { makeTempDir } from '../helpers/temp-dir';

const status = electronStatus();
if (!status.available) {
  console.log(`Electron tier SKIPPED: ${status.reason}. It runs where an Electron binary is installed.`);
}

/** The desktop shell under Playwright's Electron launcher; needs a real Electron binary. */
describe.skipIf(!status.available)('the desktop app', () => {
  const temp = makeTempDir();
  let app: ElectronApplication | undefined;
  afterAll(async () => {
    await app?.close();
    temp.remove();
  });

  it('opens a sandboxed, isolated window showing the shell', async () => {
    app = await electron.launch({
      executablePath: status.available ? status.path : '',
      args: [join(process.cwd(), 'out', 'main', 'index.js')],
      env: { ...process.env, FLEETSCOPE_DATA_DIR: temp.dir },
    });
    const window = await app.firstWindow();
    await window.getByTestId('connection-state').waitFor();
    expect(await window.getByTestId('app-info').textContent()).toContain('Desktop');
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe(
      'undefined',
    );
    const exposed = await window.evaluate(() => {
      const api = (globalThis as { fleetscope?: { calls: Record<string, unknown> } }).fleetscope;
      return {
        process: typeof (globalThis as { process?: unknown }).process,
        keys: Object.keys(api ?? {}),
        calls: Object.keys(api?.calls ?? {}),
      };
    });
    expect(exposed.process).toBe('undefined');
    expect(exposed.keys.sort()).toEqual(['calls', 'onEvents', 'surface']);
    expect(exposed.calls.sort()).toEqual([...CHANNEL_NAMES].sort());
    await window.screenshot({ path: join('test-artifacts', 'electron', 'desktop-shell.png') });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process';
import { folderIn, mountTmpfs, type SmallMount } from '../helpers/small-mount';
import { makeTempDir } from '../helpers/temp-dir';
import { serveInChromium, shot, stopServed, type ServedApp } from './session-helpers';
import { openSession } from './lanes-helpers';

const FLEET = 'resources/fleets/scripted/research-fanout.json';
const TOKEN = 'e2e-read-only-folder-token-0123456789abcdef0';
const REASON = 'The data folder is read-only';

const small = mountTmpfs('16m');
const canMount = 'mount' in small;
if (!canMount) console.log(`SKIPPED read-only folder browser test: ${small.reason}`);

/**
 * The app on a data folder it cannot write (a colleague's share, a backup): the sessions can be
 * read, and every control that would write is disabled with the reason, not left to fail.
 */
describe('the app on a read-only data folder (Chromium)', () => {
  let mount: SmallMount;
  let served: Partial<ServedApp> = {};
  const temp = makeTempDir();
  let sessionId = '';
  beforeAll(async () => {
    if (!('mount' in small)) return;
    mount = small.mount;
    const dataDir = folderIn(mount, 'data');
    const ran = await runCliProcess(['run', FLEET, '--task', 'A question', '--json', '--data-dir', dataDir]);
    expect(ran.code, ran.stderr).toBe(0);
    sessionId = (JSON.parse(ran.stdout.split('\n')[0] as string) as { sessionId: string }).sessionId;
    mount.makeReadOnly();
    served = await serveInChromium(dataDir, { token: TOKEN, viewport: { width: 1024, height: 700 } });
  }, 120_000);
  afterAll(async () => {
    await stopServed(served, temp);
    mount?.unmount();
  });

  it.skipIf(!canMount)(
    'disables rename, tags, delete, settings, resume, follow-ups and saving a fleet, saying why',
    { timeout: 120_000 },
    async () => {
      const page = served.page!;
      await page.getByTestId('nav-sessions').click();
      await page.getByTestId('session-row').first().waitFor();
      await page.getByTestId('row-actions').first().click();
      for (const id of ['action-rename', 'action-tags', 'delete-session'])
        await expect.poll(() => page.getByTestId(id).isDisabled(), { message: id }).toBe(true);
      // Exporting writes elsewhere: it stays available.
      expect(await page.getByTestId('export-json').isDisabled()).toBe(false);
      expect(await page.getByTestId('row-actions-read-only').textContent()).toContain(REASON);
      await shot(page, 'read-only-folder-row-actions-1024.png');
      await page.keyboard.press('Escape');

      await page.evaluate(() => (window.location.hash = '#/settings'));
      await page.getByTestId('settings-read-only').waitFor();
      expect(await page.getByTestId('settings-read-only').textContent()).toContain(REASON);
      expect(await page.getByTestId('theme-select').isDisabled()).toBe(true);
      expect(await page.locator('form.settings input').first().isDisabled()).toBe(true);
      await shot(page, 'read-only-folder-settings-1024.png');

      await openSession(page, sessionId);
      expect(await page.getByTestId('fork-fleet').isDisabled()).toBe(true);
      expect(await page.getByTestId('resume-run').isDisabled()).toBe(true);
      expect(await page.getByTestId('resume-reason').textContent()).toContain(REASON);
      expect(await page.getByTestId('follow-up').count()).toBe(0);
      await page.setViewportSize({ width: 1920, height: 1080 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await shot(page, 'read-only-folder-session-1920-dark.png');
    },
  );
});

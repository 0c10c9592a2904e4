import { describe, expect, it } from 'vitest';
import { serveForSuite, shot } from './session-helpers';
import { showLens } from './lanes-helpers';

const TOKEN = 'e2e-mcp-approval-token-0123456789abcdef0';
const EXAMPLE = 'example:scripted/file-scout';

/**
 * Issue 24's "done when", as a new user would: the filesystem server added in the builder to a
 * copy of an example fleet, tested, its tools ticked on an agent and approval asked for; the run
 * waits for the person in an approval panel, and the calls show in transcript, lanes and graph.
 */
describe('MCP tools added in the builder, approved in the app (Chromium)', () => {
  const pageErrors: string[] = [];
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1600, height: 1000 }, pageErrors });

  it(
    'adds and tests the filesystem server, ticks its tools and asks for approval',
    { timeout: 180_000 },
    async () => {
      const { page } = app;
      await page.getByTestId('nav-fleets').click();
      await page.getByTestId(`fleet-duplicate-${EXAMPLE}`).click();
      await page.getByTestId('fleet-builder').waitFor();
      const panel = page.getByTestId('tool-servers');
      await panel.locator('[data-server="files"]').waitFor();
      // Replace the example's server with one added by hand.
      await panel.locator('[data-server="files"]').getByTestId('tool-server-remove').click();
      await panel.getByTestId('tool-servers-empty').waitFor();
      await panel.getByTestId('tool-server-add').click();
      await page.getByTestId('server-name').fill('files');
      await page.getByTestId('server-command').fill('npx');
      await page.getByTestId('server-args').fill('-y\n@modelcontextprotocol/server-filesystem\n.');
      await page.getByTestId('server-approval').check();
      await shot(page, 'mcp-builder-server-form.png');
      await page.getByTestId('server-save').click();
      const files = panel.locator('[data-server="files"]');
      await files.getByTestId('tool-server-test').click();
      await expect
        .poll(() => files.getByTestId('tool-server-outcome').textContent(), { timeout: 60_000 })
        .toMatch(/Connected in \d+ ms: \d+ tools/);
      expect(await files.getByTestId('tool-server-tool').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('list_directory')]),
      );
      await files.getByTestId('tool-server-tool').filter({ hasText: 'list_directory' }).first().click();
      await shot(page, 'mcp-builder-server-tested.png');

      await page.getByTestId('agent-node-scout').click();
      const tools = page.getByTestId('agent-mcp-tools');
      await tools.getByTestId('tool-files/list_allowed_directories').check();
      await tools.getByTestId('tool-files/list_directory').check();
      await page.getByTestId('no-issues').waitFor();
      await shot(page, 'mcp-builder-agent-tools.png');
      await expect
        .poll(() => page.getByTestId('save-state').getAttribute('data-state'), { timeout: 10_000 })
        .toBe('saved');

      await page.getByTestId('builder-run').click();
      await page.getByTestId('run-task').fill('Look around the folder.');
      await page.getByTestId('run-start').click();
      const approval = page.getByTestId('tool-approval');
      await approval.waitFor({ timeout: 60_000 });
      expect(await approval.getByTestId('approval-tool').textContent()).toBe(
        'files/list_allowed_directories',
      );
      expect(await approval.getByTestId('approval-server').textContent()).toBe('files');
      expect(await page.getByTestId('human-input').count()).toBe(0);
      await showLens(page, 'lanes');
      await page.locator('[data-testid="lane-row"][data-kind="human-ask"]').first().waitFor();
      await shot(page, 'mcp-approval-waiting-lanes.png');
      // Keyboard: Approve has the focus when the question appears; the lens switch above took it.
      await approval.getByTestId('approval-approve').focus();
      await page.keyboard.press('Enter');

      await expect
        .poll(() => approval.getByTestId('approval-tool').textContent(), { timeout: 30_000 })
        .toBe('files/list_directory');
      await approval.getByTestId('approval-edit').click();
      const edited = approval.getByTestId('approval-edited');
      await edited.fill('{"path": 3}');
      await expect
        .poll(() => approval.getByTestId('approval-problems').textContent())
        .toContain('path must be a string');
      await shot(page, 'mcp-approval-edit-invalid.png');
      await edited.fill('{"path": "src-shared"}');
      await expect.poll(() => approval.getByTestId('approval-edit-send').isEnabled()).toBe(true);
      await approval.getByTestId('approval-edit-send').click();

      await expect
        .poll(() => page.getByTestId('session-status').getAttribute('data-status'), { timeout: 60_000 })
        .toBe('completed');
      await showLens(page, 'graph');
      const results = page.getByTestId('tool-result');
      await expect.poll(() => results.count(), { timeout: 10_000 }).toBe(2);
      await results.nth(1).locator('summary').click();
      expect(await results.nth(1).textContent()).toContain('domain');
      await shot(page, 'mcp-approval-done-graph.png');
      await showLens(page, 'lanes');
      expect(await page.locator('[data-testid="lane-row"][data-kind="human-answer"]').count()).toBe(2);
      await shot(page, 'mcp-approval-done-lanes.png');
      expect(pageErrors).toEqual([]);
    },
  );
});

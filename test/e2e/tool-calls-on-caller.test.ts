import { describe, expect, it } from 'vitest';
import { serveForSuite, shot } from './session-helpers';
import { listSessions, openSession, showLens } from './lanes-helpers';

const TOKEN = 'e2e-tool-calls-on-caller-token-0123456789a';
/** The seeded OpenAI Swarm sample: a triage agent hands off to agents that call tools. */
const SWARM_TITLE = 'I would like to return a christmas tree.';

/**
 * Issue 25 item 7: tool calls and handoffs are the calling agent's own work, drawn on its lane and
 * named in the transcript by the caller alone, never as messages to "user".
 */
describe('tool calls drawn on the calling agent (Chromium)', () => {
  const app = serveForSuite({ token: TOKEN, viewport: { width: 1920, height: 1080 } });

  it(
    'names tool calls and results by their caller in the transcript, with no "→ user"',
    { timeout: 120_000 },
    async () => {
      const { page, host } = app;
      let id: string | undefined;
      await expect
        .poll(
          async () => (id = (await listSessions(host.port, TOKEN)).find((s) => s.title === SWARM_TITLE)?.id),
          { timeout: 60_000 },
        )
        .toBeDefined();
      await openSession(page, id!);
      const rows = page.locator('[data-message-id]');
      await rows.first().waitFor();
      const shown = await rows.evaluateAll((elements) =>
        elements.map((element) => ({
          kind: element.querySelector('.kind')?.textContent?.trim() ?? '',
          who: element.querySelector('.who')?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
        })),
      );
      const toolWork = shown.filter((row) => /tool|handoff/.test(row.kind));
      expect(toolWork.length).toBeGreaterThan(0);
      for (const row of toolWork) expect(row.who, row.kind).not.toMatch(/→ user$/);
      await shot(page, 'tool-calls-on-caller-transcript-1920.png');
      await showLens(page, 'lanes');
      await shot(page, 'tool-calls-on-caller-lanes-1920.png');
    },
  );
});

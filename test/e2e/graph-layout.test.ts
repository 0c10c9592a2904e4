import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FleetInput } from '../../src-shared/domain';
import { type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, shot, serveInChromium, stopServed, type ChromiumBrowser } from './session-helpers';
import {
  GRAPH_SIZES as SIZES,
  GRAPH_THEMES as THEMES,
  measureGraph,
  openGraph,
  selectorHubFleet,
  type GraphMeasure,
} from './graph-measure';

const TOKEN = 'e2e-graph-layout-token-0123456789abcdef01';
/** The least size, in CSS pixels, of a name or an edge count drawn on a fitted graph. */
const READABLE_PX = 10.9;
const EXAMPLES = join('resources', 'fleets', 'scripted');

/** A selector team (drawn around its hub) and a nested team (drawn as a group): patterns the examples lack. */
const EXTRA_FLEETS: FleetInput[] = [
  selectorHubFleet('Selector hub', (name) => ({ content: `${name} here: my part is done.` })),
  {
    version: 1,
    name: 'Nested research team',
    agents: [
      { name: 'lead', type: 'scripted', role: 'sets the question', script: [{ content: 'Find out why.' }] },
      {
        name: 'research',
        type: 'team',
        role: 'two researchers',
        fleet: {
          version: 1,
          name: 'research',
          agents: ['reader', 'summarizer'].map((name) => ({
            name,
            type: 'scripted' as const,
            role: name,
            script: [{ content: `${name}: noted.` }],
          })),
          team: { pattern: 'round-robin' },
          termination: { type: 'max-messages', max: 3 },
        },
      },
      {
        name: 'writer',
        type: 'scripted',
        role: 'writes it up',
        script: [{ content: 'Here is the answer.' }],
      },
    ],
    team: { pattern: 'sequential' },
    termination: { type: 'max-messages', max: 8 },
  },
];

interface Listed {
  id: string;
  title: string;
  fleetName: string;
  status: string;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);

describe('the session graph lays out every example fleet and sample session cleanly', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: ChromiumBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const sessions: Array<{ name: string; id: string }> = [];

  const list = async () =>
    (await callHost<{ items: Listed[] }>(host.port, TOKEN, 'sessions.list', { limit: 100 })).items;

  beforeAll(async () => {
    ({ host, browser, page } = await serveInChromium(join(temp.dir, 'data'), {
      token: TOKEN,
      initScript: 'window.__name = (fn) => fn;',
      pageErrors,
    }));
    for (const item of await list())
      sessions.push({ name: `sample-${slug(item.fleetName || item.title)}`, id: item.id });
    const fleets: FleetInput[] = [
      ...readdirSync(EXAMPLES)
        .filter((file) => file.endsWith('.json'))
        .sort()
        .map((file) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as FleetInput),
      ...EXTRA_FLEETS,
    ];
    for (const fleet of fleets) {
      const { sessionId } = await callHost<{ sessionId: string }>(host.port, TOKEN, 'runs.start', {
        source: { fleet },
        task: `Show the ${fleet.name} graph`,
      });
      sessions.push({ name: `run-${slug(fleet.name)}`, id: sessionId });
    }
    // Scripted runs end in seconds; wait for every one before measuring.
    for (let waited = 0; (await list()).some((item) => item.status === 'running'); waited += 250) {
      if (waited > 60_000) throw new Error('example runs did not finish');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  afterAll(async () => {
    await stopServed({ browser, host }, temp);
  });

  it('has the six sample sessions and a run of every example fleet', () => {
    expect(sessions.filter((session) => session.name.startsWith('sample-')).length).toBe(
      readdirSync(join('resources', 'samples')).filter((file) => file.endsWith('.json')).length,
    );
    expect(sessions.filter((session) => session.name.startsWith('run-')).length).toBe(
      readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')).length + EXTRA_FLEETS.length,
    );
  });

  for (const size of SIZES) {
    for (const theme of THEMES) {
      it(`at ${size.name} in ${theme}: no overlaps, nothing outside or covered, labels readable at 11 px and unstacked, no clipped labels, crowded arrows or edges through cards`, async () => {
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.emulateMedia({ colorScheme: theme });
        const problems: string[] = [];
        const figures: string[] = [];
        for (const session of sessions) {
          await openGraph(page, session.id);
          expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
          const measure: GraphMeasure = await measureGraph(page);
          await shot(page, `graph-${session.name}-${size.name}-${theme}.png`);
          const where = `${session.name} ${size.name} ${theme}`;
          if (measure.nodes < 2) problems.push(`${where}: only ${measure.nodes} nodes`);
          // Every graph here has messages between its agents: each drawn edge was walked.
          if (measure.edgesChecked === 0) problems.push(`${where}: no edge drawn or walked`);
          for (const list of [
            measure.overlaps,
            measure.outside,
            measure.covered,
            measure.clipped,
            measure.crowdedArrows,
            measure.edgesThroughCards,
            measure.stackedLabels,
          ])
            for (const problem of list) problems.push(`${where}: ${problem}`);
          // Labels stay legible: fitted, no agent name or edge count is drawn below 11 px (less
          // a tenth for the fit's rounding); a crowded graph draws compact cards, not smaller text.
          if (measure.smallestNamePx < READABLE_PX)
            problems.push(`${where}: names drawn at ${measure.smallestNamePx.toFixed(1)} px`);
          if (measure.smallestEdgeLabelPx < READABLE_PX)
            problems.push(`${where}: edge labels drawn at ${measure.smallestEdgeLabelPx.toFixed(1)} px`);
          figures.push(
            `${session.name}: zoom ${measure.zoom.toFixed(2)}, names ${measure.smallestNamePx.toFixed(1)} px, edge labels ${measure.smallestEdgeLabelPx.toFixed(1)} px, fill ${(measure.fill * 100).toFixed(0)}%`,
          );
        }
        console.log(`${size.name} ${theme}\n  ${figures.join('\n  ')}`);
        expect(problems).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    }
  }
});

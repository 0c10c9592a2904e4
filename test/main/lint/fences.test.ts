import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations; checkImports is typed at its use below.
import { checkImports as checkImportsUntyped } from '../../../scripts/check-imports.mjs';

/**
 * The layer fences of docs/ARCHITECTURE.md section 2 are lint rules. These cases lint synthetic files placed
 * in each fenced folder, at two depths, and prove each fence fires on a wrong-way import in both
 * the folder-index form (`../history`) and a deep form (`../history/database`), and stays quiet on
 * the right-way imports each folder really makes. The rules are restated here from the design,
 * not read from the config, so a loosened config fails these tests.
 */
const eslint = new ESLint({ cwd: process.cwd() });
const FENCE_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax']);

/** The fence messages for `code` linted as if it were `filePath`; fails on a parse error. */
async function fenceMessages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.filter((m) => m.ruleId !== null && FENCE_RULES.has(m.ruleId)).map((m) => m.message);
}

const staticImport = (specifier: string) => `import * as m from '${specifier}';\nexport const a = m;\n`;

/** A deep module inside each src-main layer (any path below the folder works). */
const DEEP: Record<string, string> = {
  api: 'api/index',
  app: 'app/dispatcher',
  cli: 'cli/commands/run',
  electron: 'electron/window',
  history: 'history/database',
  interop: 'interop/otlp-in/otlp-http',
  llm: 'llm/openai-client',
  orchestrator: 'orchestrator/runtime/bus',
  server: 'server/web-host',
};

interface LayerFence {
  /** A folder under src-main; files are placed at `<folder>/x.ts` and `<folder>/sub/x.ts`. */
  folder: string;
  /** An exact file to lint instead of the two synthetic depths. */
  files?: string[];
  forbiddenLayers: string[];
  forbiddenPackages: string[];
  allowedLayers: string[];
  allowedPackages: string[];
}

const NO_ELECTRON = ['electron', 'electron/main'];

const LAYER_FENCES: LayerFence[] = [
  {
    folder: 'src-main/app',
    forbiddenLayers: ['cli', 'electron', 'server'],
    forbiddenPackages: NO_ELECTRON,
    allowedLayers: ['history', 'interop', 'orchestrator', 'llm'],
    allowedPackages: ['better-sqlite3', 'node:fs', '@shared/contract'],
  },
  {
    folder: 'src-main/api',
    forbiddenLayers: ['cli', 'electron', 'server', 'history', 'interop', 'orchestrator', 'llm'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3', 'openai'],
    allowedLayers: ['app'],
    allowedPackages: ['@shared/domain', 'node:path'],
  },
  {
    folder: 'src-main/orchestrator',
    forbiddenLayers: ['history', 'interop', 'app', 'server', 'electron', 'cli'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3'],
    allowedLayers: ['llm'],
    allowedPackages: ['@shared/domain', 'ajv', 'node:path'],
  },
  {
    folder: 'src-main/llm',
    forbiddenLayers: ['orchestrator', 'history', 'interop', 'app', 'server', 'electron', 'cli', 'api'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3'],
    allowedLayers: [],
    allowedPackages: ['openai', '@shared/domain'],
  },
  {
    folder: 'src-main/history',
    forbiddenLayers: ['app', 'interop', 'server', 'cli', 'electron'],
    forbiddenPackages: NO_ELECTRON,
    allowedLayers: ['orchestrator'],
    allowedPackages: ['better-sqlite3', 'zod', '@shared/domain', 'node:fs'],
  },
  {
    folder: 'src-main/interop',
    forbiddenLayers: ['app', 'server', 'cli', 'electron', 'orchestrator', 'llm'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3', 'openai'],
    // history only through its ports: see 'lets interop reach history only through its ports'
    allowedLayers: [],
    allowedPackages: ['protobufjs', 'node:http', 'node:zlib', '@shared/domain'],
  },
  {
    folder: 'src-main/server',
    forbiddenLayers: ['history', 'interop', 'orchestrator', 'llm', 'cli', 'electron'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3', 'openai'],
    allowedLayers: ['app'],
    allowedPackages: ['ws', 'node:http', '@shared/contract'],
  },
  {
    folder: 'src-main/cli',
    forbiddenLayers: ['history', 'interop', 'orchestrator', 'llm', 'server', 'electron'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3', 'openai'],
    allowedLayers: ['app'],
    allowedPackages: ['node:util', '@shared/domain'],
  },
  {
    folder: 'src-main/cli',
    files: ['src-main/cli/commands/serve.ts'],
    forbiddenLayers: ['history', 'interop', 'orchestrator', 'llm', 'electron'],
    forbiddenPackages: [...NO_ELECTRON, 'better-sqlite3', 'openai'],
    allowedLayers: ['app', 'server'],
    allowedPackages: ['node:url'],
  },
  {
    folder: 'src-main/electron',
    forbiddenLayers: ['history', 'interop', 'orchestrator', 'llm', 'server', 'cli'],
    forbiddenPackages: ['better-sqlite3', 'openai'],
    allowedLayers: ['app'],
    allowedPackages: ['electron', 'electron/main', '@shared/contract', 'node:path'],
  },
];

/** Each fenced file with the relative prefix that reaches src-main from it. */
function placements(fence: LayerFence): Array<{ file: string; up: string }> {
  const files = fence.files ?? [`${fence.folder}/x.ts`, `${fence.folder}/sub/x.ts`];
  return files.map((file) => ({ file, up: '../'.repeat(file.split('/').length - 2) }));
}

function layerCases(pick: (fence: LayerFence) => string[]): Array<[string, string]> {
  return LAYER_FENCES.flatMap((fence) =>
    placements(fence).flatMap(({ file, up }) =>
      pick(fence).flatMap((layer): Array<[string, string]> => [
        [file, `${up}${layer}`],
        [file, `${up}${DEEP[layer]}`],
      ]),
    ),
  );
}

function packageCases(pick: (fence: LayerFence) => string[]): Array<[string, string]> {
  return LAYER_FENCES.flatMap((fence) =>
    placements(fence).flatMap(({ file }) => pick(fence).map((name): [string, string] => [file, name])),
  );
}

describe('the src-main layer fences', () => {
  it.each(layerCases((fence) => fence.forbiddenLayers))('refuses in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).not.toEqual([]);
  });

  it.each(packageCases((fence) => fence.forbiddenPackages))('refuses in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).not.toEqual([]);
  });

  it.each(layerCases((fence) => fence.allowedLayers))('allows in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).toEqual([]);
  });

  it.each(packageCases((fence) => fence.allowedPackages))('allows in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).toEqual([]);
  });

  it('lets interop reach history only through its ports', async () => {
    for (const file of ['src-main/interop/x.ts', 'src-main/interop/import/x.ts']) {
      const up = '../'.repeat(file.split('/').length - 2);
      for (const internal of ['history/database', 'history/materializer', 'history/write-turns']) {
        expect(await fenceMessages(file, staticImport(`${up}${internal}`))).not.toEqual([]);
      }
      for (const port of [
        'history',
        'history/ports',
        'history/thread-write-job',
        'history/event-batch-text',
      ]) {
        expect(await fenceMessages(file, staticImport(`${up}${port}`))).toEqual([]);
      }
    }
  });

  it('lets only commands/serve.ts import the web host, not the other CLI files', async () => {
    expect(await fenceMessages('src-main/cli/commands/run.ts', staticImport('../../server'))).not.toEqual([]);
    expect(await fenceMessages('src-main/cli/commands/serve.ts', staticImport('../../server'))).toEqual([]);
  });

  it("keeps 'electron' out of src-main folders that have no fence of their own", async () => {
    for (const specifier of NO_ELECTRON) {
      expect(await fenceMessages('src-main/x.ts', staticImport(specifier))).not.toEqual([]);
      expect(await fenceMessages('src-main/newlayer/x.ts', staticImport(specifier))).not.toEqual([]);
    }
  });
});

describe('every import form is fenced', () => {
  const file = 'src-main/orchestrator/agents/x.ts';

  it.each([
    ['a static import', "import { openDatabase } from '../../history';\nexport const a = openDatabase;"],
    [
      'a type-only import',
      "import type { HistoryStore } from '../../history';\nexport type A = HistoryStore;",
    ],
    ['a re-export', "export { openDatabase } from '../../history/database';"],
    ['a star re-export', "export * from '../../history';"],
    ['a dynamic import', "export const a = await import('../../history/database');"],
    [
      'a require call',
      "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const a = require('../../history');",
    ],
    ['an import type query', "export type A = typeof import('../../history');"],
    ['an import type with a member', "export type A = import('../../history/database').Database;"],
    [
      'a dynamic import of a computed path',
      "const p = '../../his' + 'tory';\nexport const a = await import(p);",
    ],
    [
      'a path that walks back through a folder',
      "import * as m from './run/../../../history';\nexport const a = m;",
    ],
    [
      'a path spelled through src-main',
      "import * as m from '../../../src-main/history';\nexport const a = m;",
    ],
  ])('refuses %s', async (_form, code) => {
    expect(await fenceMessages(file, code)).not.toEqual([]);
  });

  it('allows a dynamic import of a permitted layer', async () => {
    expect(await fenceMessages(file, "export const a = await import('../../llm');")).toEqual([]);
  });
});

describe('the src-shared fence', () => {
  it.each([
    ['src-shared/x.ts', '../src-main'],
    ['src-shared/x.ts', '../src-main/app/dispatcher'],
    ['src-shared/domain/x.ts', '../../src-main'],
    ['src-shared/domain/x.ts', '../../src-main/history/database'],
    ['src-shared/domain/x.ts', '../../src-renderer'],
    ['src-shared/domain/x.ts', '../../src-renderer/bridge/index'],
    ['src-shared/domain/x.ts', '../../package.json'],
    ['src-shared/domain/x.ts', '@shared/../../src-main/app'],
    ['src-shared/domain/x.ts', 'vue'],
    ['src-shared/domain/x.ts', 'node:fs'],
    ['src-shared/domain/x.ts', 'fs'],
    ['src-shared/contract/x.ts', 'electron'],
    ['src-shared/contract/x.ts', 'better-sqlite3'],
  ])('refuses in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).not.toEqual([]);
  });

  it.each([
    ['src-shared/domain/x.ts', 'zod'],
    ['src-shared/domain/x.ts', './message'],
    ['src-shared/domain/x.ts', '../contract'],
    ['src-shared/domain/x.ts', '../contract/define'],
    ['src-shared/contract/x.ts', '@shared/domain'],
    ['src-shared/x.ts', './domain'],
  ])('allows in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).toEqual([]);
  });
});

describe('the src-renderer fence', () => {
  it.each([
    ['src-renderer/x.ts', '../src-main'],
    ['src-renderer/x.ts', '../src-main/app'],
    ['src-renderer/stores/x.ts', '../../src-main'],
    ['src-renderer/stores/x.ts', '../../src-main/history/database'],
    ['src-renderer/x.ts', 'electron'],
    ['src-renderer/x.ts', 'electron/renderer'],
    ['src-renderer/x.ts', 'better-sqlite3'],
    ['src-renderer/x.ts', 'openai'],
    ['src-renderer/x.ts', 'ws'],
    ['src-renderer/x.ts', 'fs'],
    ['src-renderer/x.ts', 'fs/promises'],
    ['src-renderer/x.ts', 'node:path'],
    ['src-renderer/x.ts', 'child_process'],
    ['src-renderer/x.ts', 'worker_threads'],
  ])('refuses in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).not.toEqual([]);
  });

  it('refuses a wrong-way import in a single-file component too', async () => {
    const component = `<script setup lang="ts">\nimport { openDatabase } from '../../src-main/history';\nconst a = openDatabase;\n</script>\n<template><div>{{ a }}</div></template>\n`;
    expect(await fenceMessages('src-renderer/components/X.vue', component)).not.toEqual([]);
  });

  it.each([
    ['src-renderer/x.ts', '@shared/contract'],
    ['src-renderer/x.ts', 'vue'],
    ['src-renderer/x.ts', 'pinia'],
    ['src-renderer/stores/x.ts', '../bridge'],
  ])('allows in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).toEqual([]);
  });
});

describe('the src-renderer feature fences', () => {
  it.each([
    ['src-renderer/ui/x.ts', '../session/session-store'],
    ['src-renderer/session/x.ts', '../graph/AgentGraph.vue'],
    ['src-renderer/session/x.ts', '../session-view/useTurnPicker'],
    ['src-renderer/graph/x.ts', '../lanes/lanes-store'],
    ['src-renderer/transcript/x.ts', '../lanes'],
    ['src-renderer/compare/x.ts', '../branches/family-tree'],
    ['src-renderer/builder/x.ts', '../sessions/SessionRow.vue'],
    ['src-renderer/shell/x.ts', '../session-view/SessionView.vue'],
    ['src-renderer/bridge/x.ts', '../ui/format'],
  ])('refuses in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).not.toEqual([]);
  });

  it('refuses it in a lazy import() too, and keeps the renderer fence in a feature folder', async () => {
    expect(
      await fenceMessages(
        'src-renderer/session/x.ts',
        "export const view = () => import('../graph/AgentGraph.vue');\n",
      ),
    ).not.toEqual([]);
    expect(await fenceMessages('src-renderer/graph/x.ts', staticImport('electron'))).not.toEqual([]);
    expect(await fenceMessages('src-renderer/session/x.ts', staticImport('../../src-main/app'))).not.toEqual(
      [],
    );
  });

  it.each([
    ['src-renderer/graph/x.ts', '../session/session-store'],
    ['src-renderer/session-view/x.ts', '../graph/AgentGraph.vue'],
    ['src-renderer/session-view/x.ts', '../session/usePlayer'],
    ['src-renderer/lanes/x.ts', '../transcript/message-at'],
    ['src-renderer/sessions/x.ts', '../branches/FamilyTree.vue'],
    ['src-renderer/session/x.ts', '../bridge'],
    ['src-renderer/session/x.ts', './timeline'],
    ['src-renderer/lazy-views.ts', './session-view/SessionView.vue'],
  ])('allows in %s: %s', async (file, specifier) => {
    expect(await fenceMessages(file, staticImport(specifier))).toEqual([]);
  });
});

type CheckImports = (options: {
  folders: string[];
  baseDir: string;
}) => Promise<{ errors: number; report: string }>;
const checkImports = checkImportsUntyped as CheckImports;

/**
 * The import check `npm run lint` runs after eslint (dependency-cruiser, .dependency-cruiser.cjs),
 * over small trees written to a temporary folder in the repository's layout.
 */
describe('the import check (dependency-cruiser)', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });

  async function check(files: Record<string, string>): Promise<{ errors: number; report: string }> {
    dir = mkdtempSync(join(tmpdir(), 'fleetscope-imports-'));
    for (const [path, code] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), code);
    }
    const folders = [...new Set(Object.keys(files).map((path) => path.split('/')[0] ?? ''))];
    return checkImports({ folders, baseDir: dir });
  }

  it('fails on an import cycle', async () => {
    const { errors, report } = await check({
      'src-main/history/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'src-main/history/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    expect(errors).toBeGreaterThan(0);
    expect(report).toContain('no-circular');
  });

  it('fails on a cycle that is type-only in one direction', async () => {
    const { errors, report } = await check({
      'src-main/history/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
      'src-main/history/b.ts':
        "import type { A } from './a';\nexport const b = (a: A) => a;\nexport type B = string;\n",
      'src-renderer/x.ts': "import { y } from './y';\nexport const x = y;\n",
      'src-renderer/y.ts': "import type { X } from './z';\nexport const y = 1;\nexport type Y = X;\n",
      'src-renderer/z.ts': "import { x } from './x';\nexport type X = typeof x;\n",
    });
    expect(errors).toBeGreaterThanOrEqual(2);
    expect(report).toContain('src-main/history/a.ts');
    expect(report).toContain('src-renderer/x.ts');
  });

  it('fails when llm imports the orchestrator', async () => {
    const { errors, report } = await check({
      'src-main/orchestrator/sink.ts': 'export type Sink = string;\n',
      'src-main/llm/client.ts': "import type { Sink } from '../orchestrator/sink';\nexport type C = Sink;\n",
    });
    expect(errors).toBe(1);
    expect(report).toContain('fence-llm');
  });

  it('fails when the public api reaches below the composition root, and passes through app', async () => {
    const below = await check({
      'src-main/history/store.ts': 'export const store = 1;\n',
      'src-main/api/index.ts': "import { store } from '../history/store';\nexport const s = store;\n",
    });
    expect(below.errors).toBe(1);
    expect(below.report).toContain('fence-api');
    rmSync(dir, { recursive: true, force: true });
    const through = await check({
      'src-main/app/index.ts': 'export const createApp = () => 1;\n',
      'src-main/api/index.ts': "import { createApp } from '../app';\nexport const s = createApp;\n",
    });
    expect(through.errors).toBe(0);
  });

  it('lets history import the orchestrator port types only, no values', async () => {
    const orchestrator = {
      'src-main/orchestrator/sink.ts':
        "export interface EventSink { append(): void }\nexport const FORKED = 'forked';\n",
    };
    const types = await check({
      ...orchestrator,
      'src-main/history/store.ts':
        "import type { EventSink } from '../orchestrator/sink';\nexport const s = (x: EventSink) => x;\n",
    });
    expect(types.errors).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    const value = await check({
      ...orchestrator,
      'src-main/history/store.ts':
        "import { FORKED } from '../orchestrator/sink';\nexport const s = FORKED;\n",
    });
    expect(value.errors).toBe(1);
    expect(value.report).toContain('history-takes-orchestrator-types-only');
  });
});

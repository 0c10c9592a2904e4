// Flat config. The layer fences of docs/ARCHITECTURE.md section 2 are the `no-restricted-imports` blocks built
// by `fence()` below: they make the import arrows real, so a wrong-way import fails `npm run lint`.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import vueParser from 'vue-eslint-parser';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

/** The folders of src-main, each one layer (docs/ARCHITECTURE.md section 2). */
const LAYERS = ['api', 'app', 'cli', 'electron', 'history', 'interop', 'llm', 'orchestrator', 'server'];

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternatives = (names) => names.map(escapeRegex).join('|');

/** A package or any of its subpaths: `electron`, `electron/main`. */
const packageImport = (names) => `^(?:${alternatives(names)})(?:/.*)?$`;

/**
 * A relative import of a src-main layer from inside src-main, at any depth, in the folder-index
 * form (`../history`, `../../history`) and the deep form (`../../history/database`), also when
 * spelled through src-main (`../../../src-main/history`). Layer names are matched only right after
 * the leading `../` run, so a file's own subfolders (`./export`) never match.
 */
const layerImport = (layers) =>
  `^(?:\\./)?(?:\\.\\./)+(?:(?:[^/]+/)*src-main/)?(?:${alternatives(layers)})(?:/.*)?$`;

/**
 * A deep import of history from outside it, other than its ports: interop may use `history`
 * (index.ts), `history/ports`, `history/thread-write-job` (the import's writing thread loads
 * only what it writes with) and `history/event-batch-text` (the import's batches as the parsing
 * thread sends them to the writing thread), never the store's internals.
 */
const HISTORY_INTERNALS =
  '^(?:\\./)?(?:\\.\\./)+(?:(?:[^/]+/)*src-main/)?history/(?!(?:ports|thread-write-job|event-batch-text)$).+$';

/**
 * A `..` after an ordinary segment (`./run/../../history`, `@shared/../../src-main`): such paths
 * could walk around every fence above, so fenced code writes its imports in normal form.
 */
const UNNORMALIZED = {
  regex: '(?:^|/)[^./][^/]*/(?:.*/)?\\.\\.(?:/|$)',
  message:
    'Write the import path in normal form (no `..` after a folder name), so the layer fences can read it.',
};

/** Every Node builtin, bare (`fs`, `fs/promises`) or `node:`-prefixed. */
const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith('_'));
const NODE_BUILTIN_IMPORT = `^(?:node:.*|(?:${alternatives(NODE_BUILTINS)})(?:/.*)?)$`;

/**
 * The same check for the import forms `no-restricted-imports` does not see: `import('...')`,
 * `require('...')` and TypeScript's `import('...')` types. esquery regexes cannot hold a `/`, so
 * it is written `\x2F`.
 */
function dynamicImportSelectors({ regex, message }) {
  const literal = `/${regex.replace(/\//g, '\\x2F')}/i`;
  return [
    `ImportExpression[source.value=${literal}]`,
    `CallExpression[callee.name='require'][arguments.0.value=${literal}]`,
    `TSImportType[argument.literal.value=${literal}]`,
  ].map((selector) => ({ selector, message }));
}

/** An import path the fences cannot read, so fenced code may not use it. */
const COMPUTED_IMPORTS = [
  {
    selector: "ImportExpression[source.type!='Literal']",
    message: 'Import a literal path, so the layer fences can check it.',
  },
  {
    selector: "CallExpression[callee.name='require'][arguments.0.type!='Literal']",
    message: 'Require a literal path, so the layer fences can check it.',
  },
];

/**
 * One fence: the imports a folder may not make, in every import form. A flat-config block's rule
 * options replace (not merge with) an earlier block's, so each block carries its folder's whole list.
 */
function fence({ packages = [], layers = [], regexes = [] }, message) {
  const patterns = [
    UNNORMALIZED,
    ...(packages.length ? [{ regex: packageImport(packages), message }] : []),
    ...(layers.length ? [{ regex: layerImport(layers), message }] : []),
    ...regexes.map((regex) => ({ regex, message })),
  ];
  return {
    'no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': ['error', ...COMPUTED_IMPORTS, ...patterns.flatMap(dynamicImportSelectors)],
  };
}

/** Only src-main/electron imports Electron; no other folder of any side may. */
const ELECTRON = ['electron'];

/**
 * src-shared may import only zod, `@shared/...` and relative paths that stay inside src-shared.
 * A file `depth` folders below src-shared leaves it with `depth + 1` leading `../`; one block per
 * depth makes that exact.
 */
const SHARED_MAX_DEPTH = 6;
const sharedFences = Array.from({ length: SHARED_MAX_DEPTH + 1 }, (_, depth) => ({
  files:
    depth === SHARED_MAX_DEPTH
      ? [`src-shared/${'*/'.repeat(depth)}**`]
      : [`src-shared/${'*/'.repeat(depth)}*`],
  rules: fence(
    {
      regexes: ['^(?!(?:zod(?:/.*)?|@shared/.*|\\.\\.?/.*)$)', `^(?:\\./)?(?:\\.\\./){${depth + 1},}`],
    },
    'src-shared is plain TypeScript: it may import only zod and itself (docs/ARCHITECTURE.md section 2).',
  ),
}));

/** The renderer's own fence: it reaches the backend only through src-renderer/bridge. */
const RENDERER_FENCE = fence(
  {
    packages: [...ELECTRON, 'better-sqlite3', 'openai', 'ws'],
    regexes: ['(?:^|/)src-main(?:/|$)', NODE_BUILTIN_IMPORT],
  },
  'The renderer reaches the backend only through src-renderer/bridge: no src-main, electron, sqlite, openai, ws or Node builtins (docs/ARCHITECTURE.md section 2).',
);

/**
 * The renderer's folders (one per feature, plus the shared ui/ and bridge/) and the folders each
 * may import, so the arrows between features run one way. Files at the top of src-renderer
 * (App.vue, main.ts, lazy-views.ts) put the features together and may import any.
 */
const RENDERER_FOLDERS = {
  bridge: [],
  ui: [],
  session: ['bridge', 'ui'],
  graph: ['session', 'ui'],
  transcript: ['session', 'graph', 'branches', 'ui'],
  lanes: ['session', 'transcript', 'ui'],
  builder: ['bridge', 'ui'],
  compare: ['bridge', 'session', 'graph', 'ui'],
  context: ['session', 'ui'],
  branches: ['bridge', 'session', 'builder', 'compare', 'shell', 'ui'],
  sessions: ['bridge', 'branches', 'builder', 'compare', 'shell', 'ui'],
  shell: ['bridge', 'compare', 'ui'],
  settings: ['bridge', 'builder', 'shell', 'ui'],
  'session-view': [
    'bridge',
    'session',
    'context',
    'graph',
    'lanes',
    'transcript',
    'branches',
    'builder',
    'sessions',
    'shell',
    'ui',
  ],
};

/** Rules of several fences together (each keeps its own message), without repeats. */
function combineFences(...fences) {
  const unique = (items) => [...new Map(items.map((item) => [JSON.stringify(item), item])).values()];
  return {
    'no-restricted-imports': [
      'error',
      { patterns: unique(fences.flatMap((rules) => rules['no-restricted-imports'][1].patterns)) },
    ],
    'no-restricted-syntax': [
      'error',
      ...unique(fences.flatMap((rules) => rules['no-restricted-syntax'].slice(1))),
    ],
  };
}

const rendererFolderFences = Object.entries(RENDERER_FOLDERS).map(([folder, allowed]) => {
  const forbidden = Object.keys(RENDERER_FOLDERS).filter(
    (other) => other !== folder && !allowed.includes(other),
  );
  return {
    files: [`src-renderer/${folder}/**`],
    rules: combineFences(
      RENDERER_FENCE,
      fence(
        { layers: forbidden },
        `src-renderer/${folder} may import only ${allowed.length ? allowed.join(', ') : 'itself'} among the renderer's folders, so features import each other one way (docs/ARCHITECTURE.md section 2).`,
      ),
    ),
  };
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'test-artifacts/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module' } },
  },
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'vue/multi-word-component-names': 'off',
    },
  },
  {
    files: ['src-renderer/**', 'test/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...sharedFences,
  { files: ['src-renderer/**'], rules: RENDERER_FENCE },
  ...rendererFolderFences,
  {
    // Any src-main folder without a fence of its own below (and files directly in src-main).
    files: ['src-main/**'],
    ignores: LAYERS.map((layer) => `src-main/${layer}/**`),
    rules: fence({ packages: ELECTRON }, "Only src-main/electron/ may import 'electron'."),
  },
  {
    files: ['src-main/api/**'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3', 'openai'],
        layers: ['cli', 'electron', 'history', 'interop', 'llm', 'orchestrator', 'server'],
      },
      'The public `fleetscope/api` entry goes through the composition root src-main/app (and src-shared), nothing below it.',
    ),
  },
  {
    files: ['src-main/app/**'],
    rules: fence(
      { packages: ELECTRON, layers: ['api', 'cli', 'electron', 'server'] },
      'The composition root is independent of transport: no electron, server or CLI imports (docs/ARCHITECTURE.md section 2).',
    ),
  },
  {
    files: ['src-main/orchestrator/**'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3'],
        layers: ['api', 'app', 'cli', 'electron', 'history', 'interop', 'server'],
      },
      'The orchestrator knows storage only through the EventSink interface: no electron, sqlite, history, interop, app, server or CLI imports.',
    ),
  },
  {
    files: ['src-main/llm/**'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3'],
        layers: ['api', 'app', 'cli', 'electron', 'history', 'interop', 'orchestrator', 'server'],
      },
      'llm is the model clients only: the orchestrator imports llm, never the other way; no electron, sqlite, history, interop, app, server or CLI imports.',
    ),
  },
  {
    files: ['src-main/history/**'],
    rules: fence(
      { packages: ELECTRON, layers: ['api', 'app', 'cli', 'electron', 'interop', 'server'] },
      'History is the SQLite store only: no electron, app, interop, server or CLI imports.',
    ),
  },
  {
    files: ['src-main/interop/**'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3', 'openai'],
        layers: ['api', 'app', 'cli', 'electron', 'llm', 'orchestrator', 'server'],
        regexes: [HISTORY_INTERNALS],
      },
      "Interop (import, export, OTLP in and out) reaches the store only through history's ports (history/index.ts, history/ports.ts, history/thread-write-job.ts for the import's writing thread, history/event-batch-text.ts for its batches) and src-shared.",
    ),
  },
  {
    files: ['src-main/server/**'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3', 'openai'],
        layers: ['api', 'cli', 'electron', 'history', 'interop', 'llm', 'orchestrator'],
      },
      'The web host reaches the backend only through the composition root src-main/app (and src-shared).',
    ),
  },
  {
    files: ['src-main/cli/**'],
    ignores: ['src-main/cli/commands/serve.ts'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3', 'openai'],
        layers: ['api', 'electron', 'history', 'interop', 'llm', 'orchestrator', 'server'],
      },
      'The CLI goes through the composition root src-main/app (and src-shared); only commands/serve.ts may import the web host.',
    ),
  },
  {
    files: ['src-main/cli/commands/serve.ts'],
    rules: fence(
      {
        packages: [...ELECTRON, 'better-sqlite3', 'openai'],
        layers: ['api', 'electron', 'history', 'interop', 'llm', 'orchestrator'],
      },
      'The serve command may import the web host (src-main/server) and the composition root, nothing below them.',
    ),
  },
  {
    files: ['src-main/electron/**'],
    rules: fence(
      {
        packages: ['better-sqlite3', 'openai'],
        layers: ['api', 'cli', 'history', 'interop', 'llm', 'orchestrator', 'server'],
      },
      'The desktop shell reaches the backend only through the composition root src-main/app (and src-shared).',
    ),
  },
  prettier,
);

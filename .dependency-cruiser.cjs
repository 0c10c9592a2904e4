// dependency-cruiser rules, run by `npm run lint` through scripts/check-imports.mjs. The cycle rule
// is what eslint cannot see (it reads one file at a time); the layer rules restate the fences of
// eslint.config.js (docs/ARCHITECTURE.md section 2) over resolved paths, so an import the eslint
// patterns miss (an alias, an odd spelling) is still caught.

/** For each src-main layer, the layers it may not import. */
const FORBIDDEN_LAYERS = {
  api: ['cli', 'electron', 'history', 'interop', 'llm', 'orchestrator', 'server'],
  app: ['api', 'cli', 'electron', 'server'],
  orchestrator: ['api', 'app', 'cli', 'electron', 'history', 'interop', 'server'],
  llm: ['api', 'app', 'cli', 'electron', 'history', 'interop', 'orchestrator', 'server'],
  history: ['api', 'app', 'cli', 'electron', 'interop', 'server'],
  interop: ['api', 'app', 'cli', 'electron', 'llm', 'orchestrator', 'server'],
  server: ['api', 'cli', 'electron', 'history', 'interop', 'llm', 'orchestrator'],
  cli: ['api', 'electron', 'history', 'interop', 'llm', 'orchestrator'],
  electron: ['api', 'cli', 'history', 'interop', 'llm', 'orchestrator', 'server'],
};

const layerRules = Object.entries(FORBIDDEN_LAYERS).map(([layer, forbidden]) => ({
  name: `fence-${layer}`,
  severity: 'error',
  comment: `src-main/${layer} may not import ${forbidden.join(', ')} (docs/ARCHITECTURE.md section 2).`,
  from: { path: `^src-main/${layer}/` },
  to: { path: `^src-main/(?:${forbidden.join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere; a type-only import counts as an edge.',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'fence-cli-server',
      severity: 'error',
      comment: 'Only the serve command imports the web host.',
      from: { path: '^src-main/cli/', pathNot: '^src-main/cli/commands/serve[.]ts$' },
      to: { path: '^src-main/server/' },
    },
    {
      name: 'history-takes-orchestrator-types-only',
      severity: 'error',
      comment: "History implements the orchestrator's ports (EventSink): it imports their types, no values.",
      from: { path: '^src-main/history/' },
      to: { path: '^src-main/orchestrator/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'shared-stands-alone',
      severity: 'error',
      comment: 'src-shared imports only itself and zod.',
      from: { path: '^src-shared/' },
      to: { path: '^(?:src-main|src-renderer)/' },
    },
    {
      name: 'renderer-through-bridge',
      severity: 'error',
      comment: 'The renderer reaches the backend only through src-renderer/bridge.',
      from: { path: '^src-renderer/' },
      to: { path: '^src-main/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules/' },
    // Type-only imports are edges too: `import type` both ways is still a cycle for a reader.
    tsPreCompilationDeps: true,
    // The `@shared/*` alias; tsconfig.web.json names the same paths as tsconfig.node.json.
    tsConfig: { fileName: 'tsconfig.web.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.vue', '.mjs', '.js', '.json'] },
  },
};

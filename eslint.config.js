// Flat config. The layer fences of DESIGN.md section 2 are the `no-restricted-imports` blocks:
// they make the import arrows real, so a wrong-way import fails `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import vueParser from 'vue-eslint-parser';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const fence = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group, message })) }],
});

const NODE_BUILTINS = [
  'node:*',
  'fs',
  'path',
  'child_process',
  'os',
  'crypto',
  'http',
  'net',
  'url',
  'stream',
];

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
  {
    files: ['src-shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(zod|@shared/.*|\\.\\.?/.*)$)',
              message:
                'src-shared is plain TypeScript: it may import only zod and itself (DESIGN.md section 2).',
            },
            {
              group: ['**/src-main/**', '**/src-renderer/**', '../../*'],
              message: 'src-shared may not reach into src-main or src-renderer.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**'],
    rules: fence(
      [['**/src-main/**', 'electron', 'better-sqlite3', 'openai', 'ws', ...NODE_BUILTINS]],
      'The renderer reaches the backend only through src-renderer/bridge (DESIGN.md section 2).',
    ),
  },
  {
    files: ['src-main/**'],
    ignores: ['src-main/electron/**'],
    rules: fence([['electron', 'electron/*']], "Only src-main/electron/ may import 'electron'."),
  },
  {
    files: ['src-main/orchestrator/**', 'src-main/llm/**'],
    rules: fence(
      [
        [
          'electron',
          'electron/*',
          'better-sqlite3',
          '**/history/**',
          '**/app/**',
          '**/server/**',
          '**/electron/**',
          '**/cli/**',
        ],
      ],
      'The orchestrator knows storage only through its EventSink interface; no electron, no sqlite.',
    ),
  },
  {
    files: ['src-main/history/**'],
    rules: fence(
      [['electron', 'electron/*', '**/app/**', '**/server/**', '**/electron/**', '**/cli/**']],
      'History is storage only: no electron, no app, server or CLI imports.',
    ),
  },
  prettier,
);

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer fences of DESIGN.md section 2 are lint rules; these cases prove each one fires on a
 * wrong-way import and stays quiet on a right-way one.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layer fences', () => {
  it.each([
    ['src-main/app/x.ts', "import { app } from 'electron';\nexport const a = app;"],
    ['src-main/history/x.ts', "import { app } from 'electron';\nexport const a = app;"],
    ['src-shared/domain/x.ts', "import { ref } from 'vue';\nexport const a = ref;"],
    ['src-shared/domain/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;"],
    [
      'src-shared/domain/x.ts',
      "import { createApp } from '../../src-main/app';\nexport const a = createApp;",
    ],
    ['src-renderer/x.ts', "import Database from 'better-sqlite3';\nexport const a = Database;"],
    ['src-renderer/x.ts', "import { createApp } from '../src-main/app';\nexport const a = createApp;"],
    ['src-renderer/x.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;"],
    ['src-main/orchestrator/x.ts', "import Database from 'better-sqlite3';\nexport const a = Database;"],
    [
      'src-main/orchestrator/x.ts',
      "import { openDatabase } from '../history/database';\nexport const a = openDatabase;",
    ],
  ])('refuses a wrong-way import in %s', async (file, code) => {
    expect(await restrictedImports(file, code)).toHaveLength(1);
  });

  it.each([
    ['src-main/electron/x.ts', "import { app } from 'electron';\nexport const a = app;"],
    [
      'src-shared/domain/x.ts',
      "import { z } from 'zod';\nimport { MESSAGE_KINDS } from './message';\nexport const a = [z, MESSAGE_KINDS];",
    ],
    ['src-renderer/x.ts', "import { contract } from '@shared/contract';\nexport const a = contract;"],
    [
      'src-main/app/x.ts',
      "import { openDatabase } from '../history/database';\nexport const a = openDatabase;",
    ],
  ])('allows a right-way import in %s', async (file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});

// The first route's JavaScript budget, read from the build (browser tier: runs after the build).
// A size assertion, not a timing one: the bytes every visitor downloads and parses before the
// sessions page can show, whatever the machine.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAst } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/browser';

const RENDERER = resolve('out', 'renderer');
/** Issue 14: the first route's JavaScript under 500 KB (decimal kilobytes, uncompressed). */
const BUDGET_BYTES = 500 * 1000;

interface ModuleLinks {
  statics: string[];
  dynamics: string[];
}

interface LiteralNode {
  type?: string;
  value?: unknown;
  expressions?: unknown[];
  quasis?: Array<{ value: { cooked?: string } }>;
}

/** A string literal's text, also written as a template without expressions (as minifiers do). */
function literalText(node: LiteralNode): string | null {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions?.length === 0 && node.quasis?.length === 1)
    return node.quasis[0]!.value.cooked ?? null;
  return null;
}

/** Every `import`/`export … from` (static) and `import()` with a literal path (dynamic) of one file. */
function linksOf(file: string): ModuleLinks {
  const ast = parseAst(readFileSync(file, 'utf8'));
  const statics: string[] = [];
  const dynamics: string[] = [];
  const at = (source: unknown) => (typeof source === 'string' ? resolve(dirname(file), source) : null);
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const { type, source } = node as { type?: string; source?: LiteralNode };
    if (
      (type === 'ImportDeclaration' ||
        type === 'ExportNamedDeclaration' ||
        type === 'ExportAllDeclaration') &&
      source
    ) {
      const target = at(source.value);
      if (target) statics.push(target);
    }
    if (type === 'ImportExpression' && source) {
      const target = at(literalText(source));
      if (target) dynamics.push(target);
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(ast);
  return { statics, dynamics };
}

/** The files `roots` load before running: themselves and, transitively, their static imports. */
function staticClosure(roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...linksOf(file).statics);
  }
  return seen;
}

/** `attribute="value"` of each tag named `tag` in the HTML whose attributes pass `keep`. */
function tagAttribute(
  html: string,
  tag: string,
  attribute: string,
  keep: (tag: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const match of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, 'gi'))) {
    const text = match[0];
    const value = new RegExp(`\\s${attribute}="([^"]+)"`, 'i').exec(text)?.[1];
    if (value && keep(text)) found.push(resolve(RENDERER, value));
  }
  return found;
}

describe('the first route bundle', () => {
  let firstRoute: Set<string>;
  let lazy: Set<string>;
  const name = (file: string) => relative(RENDERER, file);

  beforeAll(() => {
    ensureBuilt();
    const html = readFileSync(join(RENDERER, 'index.html'), 'utf8');
    const entries = tagAttribute(html, 'script', 'src', (tag) => /\stype="module"/i.test(tag));
    const preloads = tagAttribute(html, 'link', 'href', (tag) => /\srel="modulepreload"/i.test(tag));
    expect(entries.length).toBeGreaterThan(0);
    firstRoute = staticClosure([...entries, ...preloads]);
    lazy = new Set([...firstRoute].flatMap((file) => linksOf(file).dynamics));
  });

  it(`loads under ${BUDGET_BYTES / 1000} KB of JavaScript`, () => {
    const sizes = [...firstRoute].map((file) => ({ file: name(file), bytes: statSync(file).size }));
    const total = sizes.reduce((sum, entry) => sum + entry.bytes, 0);
    console.log(
      `first route: ${(total / 1000).toFixed(1)} KB in ${sizes.length} files\n` +
        sizes
          .sort((a, b) => b.bytes - a.bytes)
          .map((entry) => `  ${(entry.bytes / 1000).toFixed(1).padStart(7)} KB  ${entry.file}`)
          .join('\n'),
    );
    expect(total).toBeLessThan(BUDGET_BYTES);
  });

  it('leaves the session view, builder, settings and compare view to chunks loaded on demand', () => {
    const lazyNames = [...lazy].map(name);
    for (const view of ['SessionView', 'FleetsView', 'SettingsView', 'CompareView']) {
      const chunk = lazyNames.find((file) => file.startsWith(`assets/${view}-`));
      expect(chunk, `${view} is imported with import()`).toBeDefined();
      expect([...firstRoute].map(name)).not.toContain(chunk);
    }
  });

  it('loads the lanes and most highlighting languages only when a session needs them', () => {
    const session = [...lazy].find((file) => name(file).startsWith('assets/SessionView-'))!;
    const sessionStatic = staticClosure([session]);
    const sessionLazy = [...sessionStatic].flatMap((file) => linksOf(file).dynamics).map(name);
    for (const chunk of ['LanesView', 'highlight-more-languages']) {
      const file = sessionLazy.find((candidate) => candidate.startsWith(`assets/${chunk}-`));
      expect(file, `${chunk} is imported with import()`).toBeDefined();
      expect([...sessionStatic].map(name)).not.toContain(file);
      expect([...firstRoute].map(name)).not.toContain(file);
    }
  });
});

import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

/**
 * highlight.js with the languages agents write most registered at once; the rest of its
 * "common" set (C, C++, C#, Go, Java, Rust, ...) is a chunk of its own, fetched by
 * `loadMoreLanguages` (started when the transcript's markdown module loads, so it is normally
 * there before the first message is drawn). Until it arrives a block in one of those languages
 * is drawn plain, or auto-detected among the eager ones.
 */
const EAGER = {
  bash,
  css,
  diff,
  javascript,
  json,
  markdown,
  plaintext,
  python,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(EAGER)) hljs.registerLanguage(name, language);

let more: Promise<void> | null = null;

/** Registers the rest of highlight.js's common languages (once); resolves when they are in. */
export function loadMoreLanguages(): Promise<void> {
  more ??= import('./highlight-more-languages').then((module) => module.registerMoreLanguages(hljs));
  return more;
}

export { hljs };

import type { HLJSApi, LanguageFn } from 'highlight.js';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import go from 'highlight.js/lib/languages/go';
import graphql from 'highlight.js/lib/languages/graphql';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import kotlin from 'highlight.js/lib/languages/kotlin';
import less from 'highlight.js/lib/languages/less';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import objectivec from 'highlight.js/lib/languages/objectivec';
import perl from 'highlight.js/lib/languages/perl';
import php from 'highlight.js/lib/languages/php';
import phpTemplate from 'highlight.js/lib/languages/php-template';
import pythonRepl from 'highlight.js/lib/languages/python-repl';
import r from 'highlight.js/lib/languages/r';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import scss from 'highlight.js/lib/languages/scss';
import swift from 'highlight.js/lib/languages/swift';
import vbnet from 'highlight.js/lib/languages/vbnet';
import wasm from 'highlight.js/lib/languages/wasm';

/** The rest of highlight.js's "common" set, loaded lazily by highlight-languages.ts. */
const MORE: Record<string, LanguageFn> = {
  c,
  cpp,
  csharp,
  go,
  graphql,
  ini,
  java,
  kotlin,
  less,
  lua,
  makefile,
  objectivec,
  perl,
  php,
  'php-template': phpTemplate,
  'python-repl': pythonRepl,
  r,
  ruby,
  rust,
  scss,
  swift,
  vbnet,
  wasm,
};

export function registerMoreLanguages(hljs: HLJSApi): void {
  for (const [name, language] of Object.entries(MORE)) hljs.registerLanguage(name, language);
}

import MarkdownIt from 'markdown-it';
import DOMPurify from 'dompurify';
import { hljs, loadMoreLanguages } from './highlight-languages';

/**
 * Message content is untrusted. Markdown is rendered with raw HTML disabled (so tags show as
 * text), then the output goes through DOMPurify, which removes any script, event handler or
 * script-bearing URL that might still slip through. Only the sanitized string reaches v-html.
 */
const markdown = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: true,
  highlight(code, language) {
    const known = language && hljs.getLanguage(language) ? language : null;
    // Long blocks are left plain: highlighting them would cost more than it shows.
    if (code.length > 20_000) return '';
    try {
      const html = known
        ? hljs.highlight(code, { language: known, ignoreIllegals: true }).value
        : hljs.highlightAuto(code).value;
      return `<pre class="hljs"><code>${html}</code></pre>`;
    } catch {
      return '';
    }
  },
});

/** Non-breaking spaces for leading whitespace (a tab as four), which markdown would drop. */
function keepIndent(whitespace: string): string {
  return whitespace.replace(/\t/g, '    ').replace(/ /g, '\u00a0');
}

/**
 * Keeps the indentation of paragraph lines: markdown drops the leading spaces of a paragraph and
 * of each of its continuation lines, which flattens unfenced code and indented replies. For
 * top-level paragraphs the first line's indent is taken back from the source; inside lists and
 * quotes the structural indent is already removed, and only what is left over is kept.
 */
markdown.core.ruler.after('block', 'keep_indent', (state) => {
  const lines = state.src.split('\n');
  state.tokens.forEach((token, index) => {
    const opening = state.tokens[index - 1];
    if (token.type !== 'inline' || opening?.type !== 'paragraph_open') return;
    let content = token.content.replace(
      /\n([ \t]+)/g,
      (_match, whitespace: string) => `\n${keepIndent(whitespace)}`,
    );
    if (opening.level === 0 && opening.map) {
      const lead = /^[ \t]+/.exec(lines[opening.map[0]] ?? '')?.[0];
      if (lead) content = keepIndent(lead) + content;
    }
    token.content = content;
  });
});

let hooked = false;
function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName.toUpperCase() === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  });
}

const PURIFY = {
  FORBID_TAGS: ['style', 'script', 'iframe', 'object', 'embed', 'form', 'input', 'img', 'svg', 'math'],
  FORBID_ATTR: ['style', 'srcset'],
  ALLOW_DATA_ATTR: false,
};

/** Content rendered as sanitized HTML. Pure given its input; results are cached by the caller. */
export function renderMarkdown(content: string): string {
  installHooks();
  return DOMPurify.sanitize(markdown.render(content), PURIFY) as string;
}

/** Plain text with code highlighting only (tool arguments and results). */
export function renderCode(code: string, language = 'json'): string {
  installHooks();
  const html =
    hljs.getLanguage(language) && code.length <= 20_000
      ? hljs.highlight(code, { language, ignoreIllegals: true }).value
      : markdown.utils.escapeHtml(code);
  return DOMPurify.sanitize(`<pre class="hljs"><code>${html}</code></pre>`, PURIFY) as string;
}

/** Signs that text was written as markdown: block markers at a line start, or inline markup. */
const MARKDOWN_BLOCK = /(^|\n) {0,3}(#{1,6}\s|[-*+]\s+\S|\d{1,9}[.)]\s+\S|>|```|~~~|\|.*\|\s*(\n|$))/;
const MARKDOWN_INLINE =
  /\*\*\S[^\n]*?\*\*|__\S[^\n]*?__|`[^`\n]+`|\[[^\]\n]+\]\([^)\s]+\)|(^|\s)[*_][^*_\s][^*_\n]*[*_](?=[\s.,;:!?]|$)/;

/** How a message body is drawn: markdown, text exactly as written, or one code block. */
export type BodyMode = 'markdown' | 'plain' | 'code';

/**
 * Code messages without fences are one highlighted block; text with no markdown in it is shown
 * exactly as written (spaces, indentation and line breaks kept, links clickable); the rest is
 * markdown, with paragraph indentation kept (see keep_indent).
 */
export function bodyMode(content: string, kind: string): BodyMode {
  const fenced = /(^|\n) {0,3}(```|~~~)/.test(content);
  if (kind === 'code' && !fenced) return 'code';
  if (fenced || MARKDOWN_BLOCK.test(content) || MARKDOWN_INLINE.test(content)) return 'markdown';
  return 'plain';
}

/** Text as written, HTML-escaped, with web links made clickable. */
export function renderPlain(text: string): string {
  installHooks();
  const escape = markdown.utils.escapeHtml;
  let html = '';
  let at = 0;
  for (const link of markdown.linkify.match(text) ?? []) {
    if (!/^(https?:|mailto:)/i.test(link.url) || !markdown.validateLink(link.url)) continue;
    html += escape(text.slice(at, link.index));
    html += `<a href="${escape(markdown.normalizeLink(link.url))}">${escape(link.raw)}</a>`;
    at = link.lastIndex;
  }
  html += escape(text.slice(at));
  return DOMPurify.sanitize(html, PURIFY) as string;
}

/** A message body as sanitized HTML, drawn the way `bodyMode` says. */
export function renderBody(content: string, kind: string): { mode: BodyMode; html: string } {
  const mode = bodyMode(content, kind);
  switch (mode) {
    case 'code': {
      // A fence longer than any run of backticks in the code, so nothing inside can close it.
      const longest = (content.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
      const fence = '`'.repeat(Math.max(3, longest + 1));
      return { mode, html: renderMarkdown(`${fence}\n${content}\n${fence}`) };
    }
    case 'plain':
      return { mode, html: renderPlain(content) };
    case 'markdown':
      return { mode, html: renderMarkdown(content) };
    default: {
      const unknown: never = mode;
      return unknown;
    }
  }
}

const cache = new Map<string, { mode: BodyMode; html: string }>();
const CACHE_LIMIT = 2000;
// Bodies rendered before the lazily loaded languages arrived are rendered again with them.
void loadMoreLanguages()
  .then(() => cache.clear())
  .catch(() => undefined);

/** renderBody with a bounded cache keyed by kind and content (completed messages render once). */
export function renderBodyCached(content: string, kind: string): { mode: BodyMode; html: string } {
  const key = `${kind}\u0000${content}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const body = renderBody(content, kind);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, body);
  return body;
}

import MarkdownIt from 'markdown-it';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';

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

const cache = new Map<string, string>();
const CACHE_LIMIT = 2000;

/** renderMarkdown with a bounded cache keyed by content (completed messages render once). */
export function renderMarkdownCached(content: string): string {
  const hit = cache.get(content);
  if (hit !== undefined) return hit;
  const html = renderMarkdown(content);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(content, html);
  return html;
}

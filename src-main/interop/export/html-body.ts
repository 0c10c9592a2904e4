import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/common';

/** Longer code blocks are left plain: highlighting them would cost more than it shows. */
const MAX_HIGHLIGHT = 20_000;

/**
 * Markdown for the HTML export. Raw HTML is off (a tag in a message is shown as text) and
 * markdown-it's link check drops javascript:, vbscript:, file: and data: links; the page then
 * passes the result through DOMPurify before it reaches the document (see html-template.ts), so
 * no script in a message can run.
 */
const markdown = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: true,
  highlight(code, language) {
    if (!language || !hljs.getLanguage(language) || code.length > MAX_HIGHLIGHT) return '';
    try {
      const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
      return `<pre class="hljs"><code>${html}</code></pre>`;
    } catch {
      return '';
    }
  },
});

/** Block markers at a line start, or inline markup: signs that text was written as Markdown. */
const MARKDOWN_SIGNS =
  /(^|\n) {0,3}(#{1,6}\s|[-*+]\s+\S|\d{1,9}[.)]\s+\S|>|```|~~~|\|.*\|\s*(\n|$))|\*\*\S[^\n]*?\*\*|__\S[^\n]*?__|`[^`\n]+`|\[[^\]\n]+\]\([^)\s]+\)/;

/**
 * A message body as HTML for the page to sanitize and show, or null when it has no Markdown in
 * it (the page shows such text exactly as written, which is cheaper and keeps every space). A
 * code message without fences is one highlighted block.
 */
export function messageBodyHtml(content: string, kind: string): string | null {
  const fenced = /(^|\n) {0,3}(```|~~~)/.test(content);
  if (kind === 'code' && !fenced) {
    const longest = (content.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
    const fence = '`'.repeat(Math.max(3, longest + 1));
    return markdown.render(`${fence}\n${content}\n${fence}`);
  }
  return fenced || MARKDOWN_SIGNS.test(content) ? markdown.render(content) : null;
}

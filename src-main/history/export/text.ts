/** Escaping and formatting shared by the Markdown and HTML exports. */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML element content and quoted attributes. NUL becomes U+FFFD. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char).replace(/\0/g, '\uFFFD');
}

/** One line of inline Markdown: HTML escaped, Markdown punctuation backslash-escaped, no breaks. */
export function escapeInline(text: string): string {
  return escapeHtml(text)
    .replace(/[\\`*_[\]|~#!]/g, (char) => `\\${char}`)
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * A message body as a Markdown blockquote. Every line is prefixed, so nothing in the content
 * (headings, fences, `</details>`, raw HTML) can reach the document's own structure; HTML is
 * escaped and Markdown inside the quote still renders.
 */
export function quoteBlock(text: string): string {
  const escaped = text === '' ? '' : escapeHtml(text);
  return escaped
    .split(/\r?\n|\r/)
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** A fenced code block whose fence is longer than any backtick run inside. */
export function codeBlock(text: string, language = ''): string {
  let longest = 2;
  for (const match of text.matchAll(/`{3,}/g)) longest = Math.max(longest, match[0].length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\0/g, '\uFFFD')}\n${fence}`;
}

/** Milliseconds since the session start as `m:ss.mmm` (or `h:mm:ss.mmm`). */
export function formatOffset(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  const millis = String(total % 1000).padStart(3, '0');
  const mmss = `${String(minutes).padStart(hours ? 2 : 1, '0')}:${String(seconds).padStart(2, '0')}.${millis}`;
  return hours ? `${hours}:${mmss}` : mmss;
}

/** A JSON argument string pretty-printed when it parses, as is otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Escaping and formatting shared by the Markdown and HTML exports. */

/**
 * Punctuation whose backslash escape a model writes on purpose in Markdown (`\*`, `\_`, a literal
 * backtick or pipe): the escape is kept as an escape. Before any other punctuation (`\(`, `\[`,
 * `\{`, LaTeX's `\\`) the backslash is part of what was written and is kept visible.
 */
const MARKDOWN_ESCAPED = new Set(['*', '_', '`', '|', '~', '#']);
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;

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

/** Text made safe for HTML element content (not attributes): quotes stay as they are. */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>]/g, (char) => HTML_ESCAPES[char] ?? char).replace(/\0/g, '\uFFFD');
}

/** `&name;`, `&#123;` or `&#x1F;`: Markdown would turn it into the character it names. */
const ENTITY_AT = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;

/** Destinations a Markdown export may keep live; anything else (javascript:, data:, file:, relative) is not. */
const WEB_DESTINATION = /[ \t]*(?:\r?\n[ \t]*)?(?:https?:\/\/|mailto:)/iy;

/**
 * One line of inline Markdown (titles, names, table cells): Markdown punctuation and `<` are
 * backslash-escaped, so no link, image, emphasis or HTML can form; quotes stay as they are, line
 * breaks become spaces.
 */
export function escapeInline(text: string): string {
  return text
    .replace(/\0/g, '\uFFFD')
    .replace(/[\\`*_[\]|~#!<]/g, (char) => `\\${char}`)
    .replace(/&(?=(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)/g, '\\&')
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * Text inside a code span: no backtick can end it and no line break can leave it. In a table
 * cell (`inTable`), pipes are escaped too: GFM splits cells before it finds code spans.
 */
export function codeSpan(text: string, inTable = false): string {
  let code = text
    .replace(/`/g, "'")
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\0/g, '\uFFFD');
  if (inTable) code = code.replace(/\|/g, '\\|');
  return `\`${code}\``;
}

/**
 * Untrusted text made safe to render as Markdown while staying readable as plain text. Markdown
 * still renders (emphasis, lists, code, web links), but:
 * - every `<` is escaped, so no raw HTML and no autolink (`<javascript:...>`) can form;
 * - an inline link or image (`](...)`) or a reference definition (`]: ...`) keeps its meaning
 *   only when its destination starts with http://, https:// or mailto:; otherwise the `(` or
 *   `:` is escaped and it stays text, whatever scheme, entity or escape trick it uses;
 * - entity references are escaped, so `&#106;` is shown as written;
 * - quotes and apostrophes are written as they are;
 * - a backslash before other punctuation than `MARKDOWN_ESCAPED` is doubled, so `\(1 + 1\)` reads
 *   as written instead of losing its backslashes.
 * An escape is added only where the character is not already escaped (an even run of
 * backslashes before it in the output), so `\\<b>` cannot turn an added backslash into a literal one.
 */
export function safeMarkdown(text: string): string {
  let out = '';
  /** Backslashes at the end of `out`: an odd run escapes the next character. */
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    let escape = false;
    if (char === '<') {
      escape = true;
    } else if (char === '&') {
      ENTITY_AT.lastIndex = i;
      escape = ENTITY_AT.test(text);
    } else if ((char === '(' || char === ':') && text[i - 1] === ']') {
      WEB_DESTINATION.lastIndex = i + 1;
      escape = !WEB_DESTINATION.test(text);
    } else if (char === '\\') {
      const next = text[i + 1] ?? '';
      // Doubled whatever came before: the backslash is shown as written.
      if (ASCII_PUNCTUATION.test(next) && !MARKDOWN_ESCAPED.has(next)) {
        out += '\\';
        run++;
      }
    }
    if (escape && run % 2 === 0) out += '\\';
    out += char === '\0' ? '\uFFFD' : char;
    run = char === '\\' ? run + 1 : 0;
  }
  return out;
}

/**
 * A message body as a Markdown blockquote. Every line is prefixed, so nothing in the content
 * (headings, fences, `</details>`) can reach the document's own structure; the content is made
 * safe with `safeMarkdown`, so its Markdown still renders but links stay on the web.
 */
export function quoteBlock(text: string): string {
  if (text === '') return '';
  return safeMarkdown(text)
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

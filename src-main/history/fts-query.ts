/** Characters that make a search word: letters and digits in any script (what unicode61 indexes). */
const WORD = /[\p{L}\p{N}]/u;

/**
 * Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese) and
 * Korean, whose particles attach to words. unicode61 would index a whole sentence in them as one token, so no word inside
 * it could be found; each of their characters is indexed as a token of its own instead, and a
 * query searches its characters as a phrase (adjacent, in order).
 */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc]/u;
const UNSPACED_ALL = new RegExp(UNSPACED.source, 'gu');

/** The text as it goes into the full-text index: unspaced-script characters set apart by spaces. */
export function indexableText(text: string): string {
  return UNSPACED.test(text) ? text.replace(UNSPACED_ALL, ' $& ') : text;
}

/**
 * Turns free user text into an FTS5 MATCH expression that can never be a syntax error: every word
 * becomes a double-quoted string (quotes inside doubled), words are ANDed, and the last word
 * matches as a prefix so results follow typing. Operators, parentheses, column filters and stray
 * quotes in the input are searched for as text, never interpreted. Returns null when the text
 * has nothing searchable (then the caller applies no full-text filter).
 */
export function buildFtsQuery(text: string): string | null {
  const words = text
    .replace(/\0/g, ' ')
    .split(/\s+/u)
    .filter((word) => WORD.test(word));
  if (words.length === 0) return null;
  return words
    .map((word, index) => {
      // A quoted string of several tokens is an FTS5 phrase: "天 気" finds 天気 inside a sentence.
      const tokens = indexableText(word).trim().replace(/\s+/gu, ' ');
      const quoted = `"${tokens.replace(/"/g, '""')}"`;
      return index === words.length - 1 ? `${quoted}*` : quoted;
    })
    .join(' ');
}

/** Escapes `%`, `_` and the escape character for `LIKE ... ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

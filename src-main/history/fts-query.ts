/** Characters that make a search word: letters and digits in any script (what unicode61 indexes). */
const WORD = /[\p{L}\p{N}]/u;

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
      const quoted = `"${word.replace(/"/g, '""')}"`;
      return index === words.length - 1 ? `${quoted}*` : quoted;
    })
    .join(' ');
}

/** Escapes `%`, `_` and the escape character for `LIKE ... ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

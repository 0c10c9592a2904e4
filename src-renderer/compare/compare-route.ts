/** The two sessions of a comparison, as the URL names them: `#/compare/<a>/<b>`. */
export interface CompareRoute {
  a: string;
  b: string;
}

export function compareHash(a: string, b: string): string {
  return `#/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}`;
}

/** The pair a hash names; null for any other page or a malformed one. */
export function compareFromHash(hash: string): CompareRoute | null {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] !== 'compare' || !parts[1] || !parts[2] || parts.length > 3) return null;
  try {
    return { a: decodeURIComponent(parts[1]), b: decodeURIComponent(parts[2]) };
  } catch {
    return null;
  }
}

/** Opens the comparison of `a` and `b` (the app's hash route follows). */
export function openCompare(a: string, b: string): void {
  window.location.hash = compareHash(a, b);
}

/** Names the pair shown in the address, in place of the address asked for (no new history entry). */
export function replaceCompare(a: string, b: string): void {
  window.location.replace(compareHash(a, b));
}

/** Opens one session. */
export function openSessionById(id: string): void {
  window.location.hash = `#/sessions/${encodeURIComponent(id)}`;
}

import { reactive } from 'vue';
import { formatBytes } from '../ui/format';

/** Messages longer than this many characters are shown as a preview until expanded. */
export const PREVIEW_ABOVE = 6_000;
/** The preview shows at most this many characters and lines, cut at a line break when there is one. */
export const PREVIEW_CHARS = 700;
export const PREVIEW_LINES = 8;

/** The ids of long messages the reader expanded; kept while rows scroll out of the window and back. */
const expanded = reactive(new Set<string>());

export function isExpanded(id: string): boolean {
  return expanded.has(id);
}

export function toggleExpanded(id: string): void {
  if (expanded.has(id)) expanded.delete(id);
  else expanded.add(id);
}

/** Tool results fold sooner than messages: above this many characters or lines. */
export const RESULT_FOLD_CHARS = 1_500;
export const RESULT_FOLD_LINES = 20;

/** The start of a long message and how much is hidden ("94 KB"), or null when it is short. Pure. */
export function previewOf(content: string, above = PREVIEW_ABOVE): { text: string; hidden: string } | null {
  if (content.length <= above) return null;
  let end = PREVIEW_CHARS;
  for (let line = 0, at = -1; line < PREVIEW_LINES; line++) {
    at = content.indexOf('\n', at + 1);
    if (at < 0 || at > PREVIEW_CHARS) break;
    end = at;
  }
  const text = content.slice(0, end);
  return { text, hidden: formatBytes(new TextEncoder().encode(content.slice(text.length)).length) };
}

/** The start of a long tool result (a folder listing, a fetched page) and how much is hidden, or null. */
export function resultPreviewOf(content: string): { text: string; hidden: string } | null {
  const long =
    content.length > RESULT_FOLD_CHARS ||
    content.split('\n', RESULT_FOLD_LINES + 1).length > RESULT_FOLD_LINES;
  return long ? previewOf(content, 0) : null;
}

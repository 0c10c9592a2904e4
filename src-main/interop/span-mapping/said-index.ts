import { createHash } from 'node:crypto';

/** Something one participant said in the session, as the index finds it again. */
export interface Said {
  speaker: string;
  /** When it was said (epoch ms of the span that said it). */
  ms: number;
  /** The transcript message holding it; its recipient may still be open (see TranscriptState). */
  messageId: string;
}

/** A stretch of a longer text that repeats something said earlier: words [start, end). */
export interface Quote {
  said: Said;
  /** Character offsets in the text searched. */
  from: number;
  to: number;
}

/** Words a quote must have to be looked for inside a longer text (shorter ones only as a whole). */
export const QUOTE_WORDS = 6;

const FORMATTING = /[*_`#>"“”‘’«»]/g;
const WORD = /\S+/g;

interface Word {
  text: string;
  from: number;
  to: number;
}

/**
 * The last few long texts split, with their words and keys: a message is looked at several times
 * (was it received before, said before, does it quote anyone, remember it), and a megabyte
 * prompt costs its splitting each time. Short texts are cheap to split and never evict a long one.
 * Equal strings compare by reference first, so a hit is cheap. Kept for one batch of spans (`forgetBatchTexts`).
 */
export const LONG_TEXT = 4_096;
const LONG_TEXTS_KEPT = 4;
const recent: Array<{ text: string; words: readonly Word[]; key?: string }> = [];

function recentEntry(text: string): { text: string; words: readonly Word[]; key?: string } | null {
  if (text.length < LONG_TEXT) return null;
  let entry = recent.find((item) => item.text === text);
  if (!entry) {
    entry = { text, words: splitWords(text) };
    recent.unshift(entry);
    recent.length = Math.min(recent.length, LONG_TEXTS_KEPT);
  }
  return entry;
}

/** Keys of the shorter texts looked at in this batch (each is looked up several times). */
const keys = new Map<string, string>();

/** Lets go of the texts kept (a batch of spans is mapped: their words need not stay in memory). */
export function forgetBatchTexts(): void {
  recent.length = 0;
  keys.clear();
}

/** The text's words, lower-cased, without Markdown and quotation marks, with their offsets. */
export function words(text: string): readonly Word[] {
  return recentEntry(text)?.words ?? splitWords(text);
}

function splitWords(text: string): Word[] {
  const out: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase().replace(FORMATTING, '');
    if (word === '' || word === '-' || word === '•') continue;
    out.push({ text: word, from: match.index, to: match.index + match[0].length });
  }
  return out;
}

/** A short fixed-size key for a text after normalising (so the maps hold digests, not texts). */
export function textKey(text: string): string {
  const entry = recentEntry(text);
  if (entry) return (entry.key ??= digest(entry.words.map((word) => word.text).join(' ')));
  let key = keys.get(text);
  if (key === undefined) {
    key = digest(
      splitWords(text)
        .map((word) => word.text)
        .join(' '),
    );
    keys.set(text, key);
  }
  return key;
}

function digest(normalised: string): string {
  return createHash('sha1').update(normalised).digest('base64');
}

/**
 * What was said in one session, by the digest of its normalised words, so that a model call's
 * input can be traced back to its speakers in time linear in the input: a whole input message is
 * one lookup; a quote inside a longer input is found by the digest of its first `QUOTE_WORDS`
 * words at each word of the input, then checked word by word.
 */
export class SaidIndex {
  private readonly whole = new Map<string, Said[]>();
  /** By the first `QUOTE_WORDS` words of what was said, joined (short, so kept as they are). */
  private readonly openings = new Map<string, Array<{ said: Said; words: string[] }>>();
  /** The first word of every opening: most words of a long input start none, and cost one lookup. */
  private readonly firstWords = new Set<string>();

  add(text: string, said: Said): void {
    const list = words(text).map((word) => word.text);
    if (list.length === 0) return;
    push(this.whole, textKey(text), said);
    if (list.length >= QUOTE_WORDS) {
      push(this.openings, list.slice(0, QUOTE_WORDS).join(' '), { said, words: list });
      this.firstWords.add(list[0]!);
    }
  }

  /** Everyone who said exactly this (after normalising), in the order they were added. */
  saidWhole(text: string): Said[] {
    return this.saidWholeByKey(textKey(text));
  }

  /** As `saidWhole`, by the text's key (`textKey`). */
  saidWholeByKey(key: string): Said[] {
    return this.whole.get(key) ?? [];
  }

  /**
   * The earlier messages quoted inside `text` (each at least `QUOTE_WORDS` words long), left to
   * right, not overlapping; `pick` chooses among speakers who said the same words.
   */
  quotes(text: string, pick: (candidates: Said[]) => Said | null): Quote[] {
    const list = words(text);
    const found: Quote[] = [];
    let i = 0;
    while (i + QUOTE_WORDS <= list.length) {
      if (!this.firstWords.has(list[i]!.text)) {
        i++;
        continue;
      }
      const key = list
        .slice(i, i + QUOTE_WORDS)
        .map((word) => word.text)
        .join(' ');
      const candidates = this.openings.get(key) ?? [];
      // The longest candidate that the text goes on to repeat whole.
      let best: { said: Said[]; length: number } | null = null;
      for (const candidate of candidates) {
        const n = candidate.words.length;
        if (i + n > list.length || (best && best.length > n)) continue;
        let same = true;
        for (let k = QUOTE_WORDS; k < n && same; k++) same = list[i + k]?.text === candidate.words[k];
        if (!same) continue;
        if (best && best.length === n) best.said.push(candidate.said);
        else best = { said: [candidate.said], length: n };
      }
      const chosen = best ? pick(best.said) : null;
      if (best && chosen) {
        const first = list[i] as Word;
        const last = list[i + best.length - 1] as Word;
        found.push({ said: chosen, from: first.from, to: last.to });
        i += best.length;
      } else {
        i++;
      }
    }
    return found;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Deterministic stand-ins for what LLM agents write: prose from a vocabulary of a few thousand
 * words (frequent ones far more often, as in real text), with now and then a code block, a list
 * or a path. Lengths are a mix like an agent run's: 40% of messages 200 to 600 characters, 40%
 * 600 to 2,000, 20% 2,000 to 4,000 (mean about 1,300).
 */

const SYLLABLES = [
  'ka',
  're',
  'mi',
  'to',
  'lu',
  'sen',
  'dar',
  'vo',
  'ne',
  'pli',
  'gra',
  'tis',
  'om',
  'bel',
  'cu',
];
const COMMON = [
  'the',
  'a',
  'to',
  'of',
  'and',
  'in',
  'is',
  'that',
  'for',
  'it',
  'we',
  'this',
  'with',
  'on',
  'be',
  'should',
  'function',
  'test',
  'file',
  'error',
  'value',
  'return',
  'config',
  'request',
  'user',
];

/** A small deterministic PRNG (mulberry32), so every run writes the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY: string[] = (() => {
  const words = [...COMMON];
  const next = random(7);
  while (words.length < 4000) {
    const syllables = 1 + Math.floor(next() * 3);
    let word = '';
    for (let index = 0; index < syllables; index++)
      word += SYLLABLES[Math.floor(next() * SYLLABLES.length)] as string;
    words.push(word);
  }
  return words;
})();

/** Skewed choice: low ranks (common words) far more often than rare ones. */
const word = (next: () => number): string =>
  VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)] as string;

function sentence(next: () => number): string {
  const count = 6 + Math.floor(next() * 14);
  const words = Array.from({ length: count }, () => word(next));
  const first = words[0] as string;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${words.join(' ')}.`;
}

function block(next: () => number, index: number): string {
  const pick = next();
  if (pick < 0.15) {
    const lines = Array.from(
      { length: 2 + Math.floor(next() * 6) },
      () => `  const ${word(next)} = ${word(next)}(${word(next)}, ${Math.floor(next() * 100)});`,
    );
    return `\`\`\`ts\nfunction ${word(next)}() {\n${lines.join('\n')}\n}\n\`\`\``;
  }
  if (pick < 0.3) {
    return Array.from({ length: 2 + Math.floor(next() * 4) }, () => `- ${sentence(next)}`).join('\n');
  }
  if (pick < 0.35) return `See src/${word(next)}/${word(next)}.ts:${index % 400} for details.`;
  return Array.from({ length: 2 + Math.floor(next() * 4) }, () => sentence(next)).join(' ');
}

/** The text of message `index`: the same for the same index, every run. */
export function agentText(index: number): string {
  const next = random(index * 2654435761 + 1);
  const mix = next();
  const target =
    mix < 0.4
      ? 200 + Math.floor(next() * 400)
      : mix < 0.8
        ? 600 + Math.floor(next() * 1400)
        : 2000 + Math.floor(next() * 2000);
  const parts: string[] = [];
  let length = 0;
  while (length < target) {
    const part = block(next, index);
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join('\n\n').slice(0, target);
}

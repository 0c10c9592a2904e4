import type { CompareSummary } from './compare-store';

/**
 * One sentence on how the two sessions relate and where they part:
 * `B is a fork of A at message 3. Messages 1–2 are the same; they part at message 3.`
 */
export function relationOf(summary: CompareSummary): string {
  const { a, b, commonPrefix, divergeAt, ancestorId } = summary;
  const kin =
    b.forkOf?.sessionId === a.sessionId
      ? `B is a fork of A at message ${b.forkOf.atMessage}.`
      : a.forkOf?.sessionId === b.sessionId
        ? `A is a fork of B at message ${a.forkOf.atMessage}.`
        : ancestorId
          ? 'Two branches of one family.'
          : commonPrefix === 0
            ? 'These two sessions share no history: their messages are shown side by side, without a word-by-word diff.'
            : 'Two unrelated sessions that begin alike.';
  const plural = (count: number) => (count === 1 ? 'message' : 'messages');
  const shape =
    divergeAt === null
      ? `The two transcripts are the same (${commonPrefix} ${plural(commonPrefix)}).`
      : commonPrefix === 0
        ? 'They differ from the first message.'
        : `${commonPrefix === 1 ? 'Message 1 is' : `Messages 1–${commonPrefix} are`} the same; they part at message ${divergeAt}.`;
  return `${kin} ${shape}`;
}

import { LIMITS } from '@shared/contract';

/** The longest task a run accepts, in characters (what `runs.start` checks). */
export const TASK_LIMIT = LIMITS.text;

/**
 * What to say under a task field: nothing while it is well within the limit, the characters left
 * once it passes 90% of it, and how far over it is once it is too long (the run is then refused).
 */
export function taskLimitNote(text: string): { text: string; over: boolean } | null {
  const length = text.trim().length;
  const left = TASK_LIMIT - length;
  const format = (n: number) => n.toLocaleString('en-US');
  if (left < 0)
    return {
      text: `${format(-left)} characters over the limit of ${format(TASK_LIMIT)}: shorten the task, or share a folder with the details`,
      over: true,
    };
  if (length > TASK_LIMIT * 0.9) return { text: `${format(left)} characters left`, over: false };
  return null;
}

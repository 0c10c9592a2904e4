import { z } from 'zod';

/** Where a fork starts: the session it was forked from and the message number it keeps up to. */
export const forkOfSchema = z.object({
  sessionId: z.string(),
  /** Message number as `show` prints it (1 = the task); the fork holds messages 1..atMessage. */
  atMessage: z.number().int().positive(),
});
export type ForkOf = z.infer<typeof forkOfSchema>;

/** A session's family: the root it descends from and how many sessions share it. */
export const familyCountsSchema = z.object({
  /** The session with no parent at the top of the family (the session itself for a root). */
  rootId: z.string(),
  /** Sessions in the family, the root included (1 for a session never forked). */
  size: z.number().int().positive(),
  /** Direct forks of this session. */
  forks: z.number().int().nonnegative(),
});
export type FamilyCounts = z.infer<typeof familyCountsSchema>;

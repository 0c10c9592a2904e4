import type { ImportedEvent, ImportedSessionMeta } from '../../history/ports';
import type { ImportFormat } from './detect';

/** One session a file imports as. */
export interface SessionPlan {
  meta: ImportedSessionMeta;
  /** Lazy and single-use: bad input late in the file throws from the iteration. */
  events: Iterable<ImportedEvent>;
  /** Messages seen so far; final once `events` is exhausted. */
  counter: { messages: number };
}

export interface ImportPlan {
  format: ImportFormat;
  /**
   * At least one. Trace files holding several conversations (or traces with no conversation id)
   * import as one session each, in the order they started; every other format as one.
   */
  sessions: SessionPlan[];
}

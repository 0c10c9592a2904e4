/** Bounded undo/redo of immutable snapshots (the builder stores fleets as JSON text). */
export interface UndoStack<T> {
  /** Records the state before a change; clears the redo side. */
  record(before: T): void;
  undo(current: T): T | undefined;
  redo(current: T): T | undefined;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  clear(): void;
}

export function createUndoStack<T>(limit = 200): UndoStack<T> {
  const past: T[] = [];
  const future: T[] = [];
  return {
    record(before) {
      past.push(before);
      if (past.length > limit) past.shift();
      future.length = 0;
    },
    undo(current) {
      const previous = past.pop();
      if (previous !== undefined) future.push(current);
      return previous;
    },
    redo(current) {
      const next = future.pop();
      if (next !== undefined) past.push(current);
      return next;
    },
    get canUndo() {
      return past.length > 0;
    },
    get canRedo() {
      return future.length > 0;
    },
    clear() {
      past.length = 0;
      future.length = 0;
    },
  };
}

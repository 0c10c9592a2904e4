/**
 * What one import may hold, so hostile or broken input fails fast with a clear error instead of
 * exhausting memory. Every importer (file, drop, WebSocket, CLI) runs under these.
 */
export interface ImportLimits {
  /** Largest file accepted, in bytes. */
  maxFileBytes: number;
  /** Deepest nesting of arrays and objects. Real transcripts nest fewer than 20 levels. */
  maxDepth: number;
  /** Longest single string (a key or a value), in UTF-16 code units. */
  maxStringLength: number;
  /**
   * Most memory the values read whole may take at once, in bytes, as estimated while they are
   * assembled (an empty object counts far more than its two characters of JSON). Our own export
   * is read one event at a time; other formats are read whole, so this bounds them.
   */
  maxHeldBytes: number;
  /** Most messages in one imported session. */
  maxMessages: number;
  /** Most events in one imported session (a message is two or more events). */
  maxEvents: number;
  /**
   * Heap the parsing thread may use, in MB; beyond it the thread is stopped and the import fails.
   * A last guard: the limits above should always trip first.
   */
  workerHeapMb: number;
}

export const DEFAULT_IMPORT_LIMITS: Readonly<ImportLimits> = Object.freeze({
  maxFileBytes: 1024 * 1024 * 1024,
  maxDepth: 64,
  maxStringLength: 16 * 1024 * 1024,
  maxHeldBytes: 48 * 1024 * 1024,
  maxMessages: 1_000_000,
  maxEvents: 5_000_000,
  workerHeapMb: 256,
});

/** `1234567` -> `1.2 MB`; used in limit messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : mb.toFixed(1)} MB`;
}

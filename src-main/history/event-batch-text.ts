import type { ImportedEvent } from './ports';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A batch of an import's events (`ImportedEvent[]`) as the UTF-8 bytes of its JSON text, in an
 * ArrayBuffer of its own: the parsing thread makes it, and it is transferred, not copied, from
 * there to the main thread and on to the writing thread. The main thread only passes it on: a
 * string there would be copied in and out of its heap (some 800 MB over a million messages),
 * whose collections then land on a live run's commits and its event loop.
 */
export function encodeEventBatch(json: string): Uint8Array {
  const bytes = encoder.encode(json);
  // Transferring the buffer hands over all of it: one that held more than the batch is copied.
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

/** The buffer to transfer with a batch's bytes (the sender's copy is then emptied). */
export function eventBatchTransfer(bytes: Uint8Array): ArrayBuffer[] {
  return [bytes.buffer as ArrayBuffer];
}

/** The events of a batch (encodeEventBatch). */
export function decodeEventBatch(bytes: Uint8Array): ImportedEvent[] {
  return JSON.parse(decoder.decode(bytes)) as ImportedEvent[];
}

import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  decodeEventBatch,
  encodeEventBatch,
  eventBatchTransfer,
} from '../../../src-main/history/event-batch-text';
import type { ImportedEvent } from '../../../src-main/history/ports';

const events = [
  { kind: 'session.started', t: 1, name: 'Ünïcödé 会话 🚀' },
  { kind: 'message.completed', t: 2, id: 'm1', text: 'line\nbreak "quoted" \\ back \u2028 sep \ud83d' },
] as unknown as ImportedEvent[];

describe("an import's batch as bytes between threads", () => {
  it('gives back the same events, any text included, from a buffer of its own', () => {
    const bytes = encodeEventBatch(JSON.stringify(events));
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
    expect(decodeEventBatch(bytes)).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it('crosses to another port without a copy: the sender keeps nothing of it', () => {
    const { port1, port2 } = new MessageChannel();
    try {
      const bytes = encodeEventBatch(JSON.stringify(events));
      const size = bytes.byteLength;
      port1.postMessage({ events: bytes }, eventBatchTransfer(bytes));
      expect(bytes.byteLength).toBe(0);
      const received = receiveMessageOnPort(port2)?.message as { events: Uint8Array };
      expect(received.events.byteLength).toBe(size);
      expect(decodeEventBatch(received.events)).toEqual(JSON.parse(JSON.stringify(events)));
    } finally {
      port1.close();
    }
  });

  it('refuses text that is not a JSON batch with an error, not a partial batch', () => {
    expect(() => decodeEventBatch(encodeEventBatch('[{"kind":'))).toThrow(SyntaxError);
  });
});

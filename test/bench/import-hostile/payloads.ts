/** What the import benchmark sends through `sessions.importData`. */
export interface Payload {
  name: string;
  content: string;
  /** An empty name is refused by the channel's schema: the frame is received, never imported. */
  fileName: string;
  /** The outcome the host must give (checked, so a figure never comes from a wrong path). */
  expect: { ok: false; codes: string[] } | { ok: true; messageCount: number };
}

const MB = 1024 * 1024;

function repeatTo(bytes: number, unit: string): string {
  return unit.repeat(Math.floor(bytes / unit.length));
}

/** Our own export format with `count` short messages, as the app writes it. */
export function exportWithMessages(count: number): string {
  const parts: string[] = [
    '{"format":"fleetscope-session","version":1,',
    `"session":{"title":"Bench ${count} messages","task":"bench","fleetName":"bench","createdAt":${Date.UTC(2026, 0, 1)},"tags":[]},`,
    '"fleet":null,"events":[',
  ];
  for (let i = 0; i < count; i++) {
    const from = i % 2 ? 'alice' : 'bob';
    const message = {
      id: `m${i}`,
      threadId: `thread-${i % 50}`,
      parentId: i > 0 ? `m${i - 1}` : null,
      from,
      to: i % 2 ? 'bob' : 'alice',
      kind: 'text',
      content: `Message ${i}: the quick brown fox jumps over the lazy dog while agents discuss plan step ${i % 97}.`,
      meta: {},
      usage: { prompt: 12, completion: 20 },
      state: 'complete',
      t: i * 10,
    };
    const event = { t: i * 10, agent: from, kind: 'message.completed', payload: { message } };
    parts.push(`${i ? ',' : ''}\n${JSON.stringify(event)}`);
  }
  const stop = {
    t: count * 10,
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: 'done' },
  };
  parts.push(`,\n${JSON.stringify(stop)}\n]}\n`);
  return parts.join('');
}

/**
 * The hostile payloads and the 100k-message export, and as baselines the 10 MB and the large
 * frame refused by validation: what receiving and checking such a frame costs the host before
 * any import code runs.
 */
export function payloads(): Payload[] {
  const half = 5 * MB;
  const large = exportWithMessages(100_000);
  return [
    {
      name: 'baseline: 10 MB frame refused by validation',
      content: '['.repeat(10 * MB),
      fileName: '',
      expect: { ok: false, codes: ['invalid-input'] },
    },
    {
      name: 'nested 10 MB ([[[...]]])',
      fileName: 'bench.json',
      content: '['.repeat(half) + ']'.repeat(half),
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed nesting 10 MB ([[[...)',
      fileName: 'bench.json',
      content: '['.repeat(10 * MB),
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed message list 10 MB',
      fileName: 'bench.json',
      content: `{"messages":[${repeatTo(10 * MB, '{"role":"user","content":"hello there"},')}`,
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed list of empty objects 10 MB',
      fileName: 'bench.json',
      content: `[${repeatTo(10 * MB, '{},')}`,
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: `baseline: ${Math.round(large.length / MB)} MB frame refused by validation`,
      content: large,
      fileName: '',
      expect: { ok: false, codes: ['invalid-input'] },
    },
    {
      name: `100k-message export (${Math.round(large.length / MB)} MB)`,
      content: large,
      fileName: 'bench.json',
      expect: { ok: true, messageCount: 100_000 },
    },
  ];
}

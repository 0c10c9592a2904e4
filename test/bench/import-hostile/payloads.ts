/**
 * What the import benchmark sends: a file through the web host's import upload (as the page
 * does), or a `sessions.importData` call as one WebSocket frame (what the socket still takes).
 */
export interface Payload {
  name: string;
  content: string;
  /** An empty name is refused by the channel's schema: the frame is received, never imported. */
  fileName: string;
  via: 'upload' | 'socket';
  /**
   * The outcome the host must give (checked, so a figure never comes from a wrong path): an
   * answer, or a socket closed with one of these codes (a frame over the socket's size limit:
   * 1009, or 1006 when the host's close arrives while the client is still sending).
   */
  expect: { ok: false; codes: string[] } | { ok: true; messageCount: number } | { closedWith: number[] };
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
 * The hostile payloads and the 100k-message export, uploaded as the page does; as baselines of
 * the WebSocket, which still takes small imports: a 10 MB frame refused by validation (what
 * receiving and checking such a frame costs before any import code runs) and the export sent as
 * one frame, which the socket now closes on (it used to take 347 MB to receive and import).
 */
export function payloads(): Payload[] {
  const half = 5 * MB;
  const large = exportWithMessages(100_000);
  const largeMb = Math.round(large.length / MB);
  return [
    {
      name: 'socket baseline: 10 MB frame refused by validation',
      content: '['.repeat(10 * MB),
      fileName: '',
      via: 'socket',
      expect: { ok: false, codes: ['invalid-input'] },
    },
    {
      name: 'nested 10 MB ([[[...]]])',
      fileName: 'bench.json',
      content: '['.repeat(half) + ']'.repeat(half),
      via: 'upload',
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed nesting 10 MB ([[[...)',
      fileName: 'bench.json',
      content: '['.repeat(10 * MB),
      via: 'upload',
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed message list 10 MB',
      fileName: 'bench.json',
      content: `{"messages":[${repeatTo(10 * MB, '{"role":"user","content":"hello there"},')}`,
      via: 'upload',
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: 'unclosed list of empty objects 10 MB',
      fileName: 'bench.json',
      content: `[${repeatTo(10 * MB, '{},')}`,
      via: 'upload',
      expect: { ok: false, codes: ['invalid-input', 'too-large'] },
    },
    {
      name: `socket: the ${largeMb} MB export as one frame`,
      content: large,
      fileName: 'bench.json',
      via: 'socket',
      expect: { closedWith: [1009, 1006] },
    },
    {
      name: `100k-message export (${largeMb} MB) uploaded`,
      content: large,
      fileName: 'bench.json',
      via: 'upload',
      expect: { ok: true, messageCount: 100_000 },
    },
  ];
}

import { describe, expect, it } from 'vitest';
import { STREAM_INTERVAL_MS, StreamThrottle } from '../../../src-renderer/graph/stream-throttle';
import type { AgentNodeData } from '../../../src-renderer/session/graph-mapper';

const data = (streaming: string, status: AgentNodeData['status'] = 'streaming'): AgentNodeData => ({
  name: 'a',
  kind: 'agent',
  role: '',
  model: '',
  status,
  messages: 0,
  tokens: 0,
  toolServers: [],
  toolCalls: 0,
  broadcasts: 0,
  fromUser: 0,
  toUser: 0,
  toTeam: 0,
  streaming,
  pulseSeq: 0,
  color: '#3a7be0',
  speaking: true,
  compact: false,
  slot: null,
});

describe('streaming text reaching the graph', () => {
  it('sends every node’s grown tail together, once per interval, and holds it back in between', () => {
    const throttle = new StreamThrottle();
    throttle.mark('a', data('x'));
    throttle.mark('b', data('y'));
    throttle.begin(0);
    expect(throttle.due('a', data('xx'))).toEqual({ rest: false, tail: true });
    expect(throttle.due('b', data('yy'))).toEqual({ rest: false, tail: true });
    throttle.begin(STREAM_INTERVAL_MS / 2);
    expect(throttle.due('a', data('xxx'))).toEqual({ rest: false, tail: false });
    expect(throttle.due('b', data('yy'))).toEqual({ rest: false, tail: false });
    expect(throttle.pending).toBe(true);
    throttle.begin(STREAM_INTERVAL_MS);
    expect(throttle.due('a', data('xxx'))).toEqual({ rest: false, tail: true });
    expect(throttle.pending).toBe(false);
  });

  it('sends any other change at once, and an emptied tail too', () => {
    const throttle = new StreamThrottle();
    throttle.mark('a', data('x'));
    throttle.begin(0);
    expect(throttle.due('a', data('xy'))).toEqual({ rest: false, tail: true });
    throttle.begin(10);
    // The status goes at once; the grown tail waits for its round.
    expect(throttle.due('a', data('xyz', 'thinking'))).toEqual({ rest: true, tail: false });
    throttle.begin(20);
    expect(throttle.due('a', data('', 'thinking'))).toEqual({ rest: false, tail: true });
    expect(throttle.due('a', data('', 'thinking'))).toEqual({ rest: false, tail: false });
  });
});

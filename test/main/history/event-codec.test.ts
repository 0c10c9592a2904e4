import { describe, expect, it } from 'vitest';
import { eventBodySchema, type EventBody } from '@shared/domain';
import {
  decodePayload,
  encodeUnreferred,
  storedKind,
  type StoredEventRow,
} from '../../../src-main/history/event-codec';
import { EVENT_KIND_CODES } from '../../../src-main/history/migrations/010-short-event-kinds';

/** The payload of an event stored without a message row, as every reader decodes it. */
const roundTrip = (body: EventBody): unknown => {
  const stored: StoredEventRow = {
    seq: 1,
    t: 0,
    kind: body.kind,
    agent: null,
    msg: null,
    payload: encodeUnreferred(body),
  };
  return decodePayload(stored, undefined);
};

describe('event codec: events that refer to no message row', () => {
  it('stores statuses bare and tool results as an array, and reads them back as they were', () => {
    const bodies: EventBody[] = [
      { kind: 'agent.status', payload: { status: 'waiting-for-human' } },
      { kind: 'session.status', payload: { status: 'paused' } },
      {
        kind: 'tool.executed',
        payload: { callId: 'c', name: 'n', result: '{"a":[1]}\u2028"', isError: true },
      },
      { kind: 'tool.executed', payload: { callId: '', name: '', result: '', isError: false } },
    ];
    expect(bodies.map(encodeUnreferred)).toEqual([
      'waiting-for-human',
      'paused',
      '["c","n","{\\"a\\":[1]}\u2028\\"",1]',
      '["","","",0]',
    ]);
    for (const body of bodies) expect(roundTrip(body)).toEqual(body.payload);
  });

  it('keeps a payload with other fields or values as JSON, which reads back whole', () => {
    const odd = [
      { kind: 'agent.status', payload: { status: 'thinking', extra: 1 } },
      { kind: 'agent.status', payload: { status: '{not a word}' } },
      { kind: 'tool.executed', payload: { callId: 'c', name: 'n', result: 'r', isError: false, ms: 3 } },
      { kind: 'tool.executed', payload: { callId: 'c', name: 'n', result: 7, isError: false } },
      { kind: 'handoff', payload: { from: 'a', to: 'b', messageId: null } },
    ] as unknown as EventBody[];
    for (const body of odd) {
      expect(encodeUnreferred(body)).toBe(JSON.stringify(body.payload));
      expect(roundTrip(body)).toEqual(body.payload);
    }
  });

  it('reads payloads stored as JSON objects before short encodings existed', () => {
    const old = (kind: string, payload: unknown) =>
      decodePayload(
        { seq: 1, t: 0, kind, agent: null, msg: null, payload: JSON.stringify(payload) },
        undefined,
      );
    expect(old('agent.status', { status: 'idle' })).toEqual({ status: 'idle' });
    expect(old('tool.executed', { callId: 'c', name: 'n', result: 'r', isError: true })).toEqual({
      callId: 'c',
      name: 'n',
      result: 'r',
      isError: true,
    });
  });

  it('gives every kind a distinct one-letter code that is no kind name, or stores a later one by name', () => {
    const codes = EVENT_KIND_CODES.map(([code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((code) => /^[a-z]$/.test(code))).toBe(true);
    const kinds = eventBodySchema.options.map((option) => option.shape.kind.value);
    // Kinds added after migration 010 froze the codes are stored by their names (rare kinds:
    // one model.call per traced model call) until a migration gives them a code.
    const byName = ['model.call'];
    expect(new Set([...EVENT_KIND_CODES.map(([, kind]) => kind), ...byName])).toEqual(new Set(kinds));
    for (const kind of byName) expect(storedKind(kind)).toBe(kind);
    expect(storedKind('message.delta')).toBe('d');
    expect(storedKind('session.stopped')).toBe('z');
    expect(storedKind('some.future.kind')).toBe('some.future.kind');
  });
});

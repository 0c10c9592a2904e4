import { describe, expect, it } from 'vitest';
import { messageSchema, runEventSchema } from '@shared/domain';
import { MemorySink } from '../../../src-main/orchestrator';
import { InvalidDraftError, MessageBus } from '../../../src-main/orchestrator/runtime/bus';
import { EventRecorder } from '../../../src-main/orchestrator/runtime/recorder';
import { SessionState } from '../../../src-main/orchestrator/runtime/session-state';
import { fleet, ofKind, run, scripted, transcript } from '../../helpers/fleet-builders';

function makeBus(members: Array<{ name: string; acceptedKinds?: string[]; receiveOwnBroadcasts?: boolean }>) {
  const sink = new MemorySink();
  const session = new SessionState(new EventRecorder('s1', sink));
  const bus = new MessageBus(session, {
    scope: '',
    owner: 'user',
    members: members.map((member) => ({
      name: member.name,
      acceptedKinds: (member.acceptedKinds ?? ['text', 'task', 'error', 'code']) as never,
      receiveOwnBroadcasts: member.receiveOwnBroadcasts ?? false,
    })),
    onMessage: () => {},
  });
  return { bus, sink };
}

describe('message envelope and delivery', () => {
  it('fills in id, from, thread and parent, and validates every message against the schema', () => {
    const { bus } = makeBus([{ name: 'alice' }, { name: 'bob' }]);
    const task = bus.send('user', { to: 'alice', kind: 'task', content: 'plan' });
    const reply = bus.send('alice', { to: 'bob', kind: 'text', content: 'ok', parentId: task.id });
    expect(messageSchema.parse(reply)).toEqual(reply);
    expect(reply.from).toBe('alice');
    expect(reply.id).not.toBe(task.id);
    expect(task.threadId).toBe(task.id);
    expect(reply.threadId).toBe(task.id);
    expect(reply.parentId).toBe(task.id);
  });

  it('rejects an invalid draft with a readable error', () => {
    const { bus } = makeBus([{ name: 'alice' }]);
    expect(() => bus.send('alice', { to: '', kind: 'text', content: 'x' })).toThrow(InvalidDraftError);
    expect(() => bus.send('alice', { to: 'bob', kind: 'shout' as never, content: 'x' })).toThrow(/kind/);
  });

  it('delivers point-to-point only to the receiver', () => {
    const { bus } = makeBus([{ name: 'alice' }, { name: 'bob' }, { name: 'carol' }]);
    bus.send('alice', { to: 'bob', kind: 'text', content: 'psst' });
    expect(bus.inbox('bob').map((message) => message.content)).toEqual(['psst']);
    expect(bus.inbox('carol')).toHaveLength(0);
    expect(bus.inbox('alice')).toHaveLength(0);
  });

  it('delivers broadcasts to everyone but the sender unless it opted in', () => {
    const { bus } = makeBus([
      { name: 'alice' },
      { name: 'bob' },
      { name: 'echo', receiveOwnBroadcasts: true },
    ]);
    bus.send('alice', { to: '*', kind: 'text', content: 'from alice' });
    bus.send('echo', { to: '*', kind: 'text', content: 'from echo' });
    expect(bus.inbox('alice').map((message) => message.content)).toEqual(['from echo']);
    expect(bus.inbox('bob').map((message) => message.content)).toEqual(['from alice', 'from echo']);
    expect(bus.inbox('echo').map((message) => message.content)).toEqual(['from alice', 'from echo']);
  });

  it('drops a message to an unknown agent and records why', () => {
    const { bus, sink } = makeBus([{ name: 'alice' }]);
    const message = bus.send('alice', { to: 'nobody', kind: 'text', content: 'hello?' });
    const dropped = sink.ofKind('message.dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.payload.message.id).toBe(message.id);
    expect(dropped[0]?.payload.reason).toContain('"nobody"');
  });

  it('answers a direct message of an unaccepted kind with an error message to the sender', () => {
    const { bus } = makeBus([{ name: 'alice' }, { name: 'reviewer', acceptedKinds: ['code'] }]);
    const sent = bus.send('alice', { to: 'reviewer', kind: 'text', content: 'chat?' });
    expect(bus.inbox('reviewer')).toHaveLength(0);
    const [bounce] = bus.inbox('alice');
    expect(bounce?.kind).toBe('error');
    expect(bounce?.from).toBe('reviewer');
    expect(bounce?.parentId).toBe(sent.id);
    expect(bounce?.content).toContain('does not accept text');
  });

  it('lets broadcasts pass by agents that do not accept their kind, without errors', () => {
    const { bus, sink } = makeBus([
      { name: 'alice' },
      { name: 'reviewer', acceptedKinds: ['code'] },
      { name: 'bob' },
    ]);
    bus.send('alice', { to: '*', kind: 'text', content: 'all hands' });
    expect(bus.inbox('reviewer')).toHaveLength(0);
    expect(bus.inbox('bob')).toHaveLength(1);
    expect(sink.ofKind('message.completed').map((event) => event.payload.message.kind)).toEqual(['text']);
  });
});

describe('delivery inside a run', () => {
  it('records a scripted reply to an unknown agent as dropped and carries on', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('alice', [{ content: 'to the void', to: 'ghost' }, { content: 'hello all' }])],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 3 },
      }),
      task: 'go',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages');
    expect(ofKind(events, 'message.dropped').map((event) => event.payload.message.content)).toEqual([
      'to the void',
    ]);
    expect(transcript(events)).toEqual(['user>*: go', 'alice>ghost: to the void', 'alice>*: hello all']);
  });

  it('events have strictly increasing seq from 1 and non-decreasing t, in the sink and for listeners', async () => {
    const sink = new MemorySink();
    const { handle, events } = run({
      sink,
      fleet: fleet({
        agents: [
          scripted('a', ['one two three four'], { loop: true }),
          scripted('b', ['five six'], { loop: true }),
        ],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 5 },
      }),
      task: 'count',
    });
    await handle.done;
    expect(sink.events).toEqual(events);
    events.forEach((event, index) => {
      expect(event.seq).toBe(index + 1);
      expect(event.sessionId).toBe(handle.sessionId);
      if (index > 0) expect(event.t).toBeGreaterThanOrEqual(events[index - 1]?.t ?? 0);
    });
    expect(events[0]?.kind).toBe('session.started');
    expect(events.at(-1)?.kind).toBe('session.stopped');
    expect(sink.flushes).toBeGreaterThan(0);
    for (const event of events) expect(runEventSchema.safeParse(event).success, event.kind).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { fleetSchema, type Message, type MessageKind, type RunEvent } from '@shared/domain';
import { agentViewOf, foldRuntime } from '../../../src-main/orchestrator';

const fleet = fleetSchema.parse({
  version: 1,
  name: 'views',
  agents: [
    { name: 'ann', type: 'scripted', script: [{ content: 'hi' }], receiveOwnBroadcasts: true },
    { name: 'bob', type: 'scripted', script: [{ content: 'hi' }], acceptedKinds: ['text', 'task'] },
    { name: 'cat', type: 'scripted', script: [{ content: 'hi' }] },
    {
      name: 'crew',
      type: 'team',
      fleet: {
        version: 1,
        name: 'crew',
        agents: [{ name: 'xia', type: 'scripted', script: [{ content: 'hi' }] }],
        team: { pattern: 'round-robin' },
      },
    },
  ],
  team: { pattern: 'round-robin' },
});

let seq = 0;
function message(
  from: string,
  to: string,
  kind: MessageKind = 'text',
  meta: Record<string, unknown> = {},
): Message {
  seq += 1;
  return {
    id: `m${seq}`,
    threadId: 't',
    parentId: null,
    from,
    to,
    kind,
    content: `${from} to ${to}`,
    meta,
    state: 'complete',
    t: seq,
  };
}

describe('agentViewOf: an agent view without folding the runtime', () => {
  it('gives every agent the view the runtime fold gives it', () => {
    const messages = [
      message('user', 'ann', 'task'),
      message('ann', '*'), // a broadcast: ann receives her own (receiveOwnBroadcasts)
      message('bob', '*', 'code'), // cat takes code, bob's own broadcast is not his again
      message('ann', 'bob', 'code'), // bob does not accept code: bounced
      message('cat', 'bob', 'error', { bounced: true }), // a runtime error always reaches
      message('cat', 'cat', 'tool'), // a note to itself
      message('bob', 'nobody'), // no such receiver: dropped
      message('ann', 'user'), // leaves the team
      message('crew', 'crew/xia', 'task'), // the nested team's task
      message('crew/xia', 'crew'), // inside the nested team
      message('crew', '*'), // the team agent speaks on the top-level bus
    ];
    const events = messages.map((item, index): RunEvent => ({
      sessionId: 's',
      seq: index + 1,
      t: index,
      agent: item.from,
      kind: 'message.completed',
      payload: { message: item },
    }));
    const views = foldRuntime(events, fleet).team.memory.views;
    for (const agent of ['ann', 'bob', 'cat', 'crew']) {
      expect(agentViewOf(fleet, agent, messages).map((item) => item.id)).toEqual(
        (views[agent] ?? []).map((item) => item.id),
      );
    }
    // The rules are exercised: views differ, and some messages reach no view.
    expect(new Set(['ann', 'bob', 'cat'].map((agent) => views[agent]?.length)).size).toBeGreaterThan(1);
    expect(agentViewOf(fleet, 'bob', messages).map((item) => item.id)).not.toContain('m4');
  });
});

import { describe, expect, it } from 'vitest';
import type { Family, FamilyNode, SessionListItem } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { MessageLog } from '../../src-renderer/session/message-log';
import {
  agentsOfFleetSpec,
  checkForkInput,
  createDraft,
  describeDraft,
  forkInputOf,
  runBlocker,
} from '../../src-renderer/branches/fork-draft';
import { forkPointAt, forkPointBlocker, messageNumberOf } from '../../src-renderer/branches/message-number';
import { familyRows, forkLabel, groupFamilies, lineageOf } from '../../src-renderer/branches/family-tree';
import { EventLog } from './session-fixture';

const fleet: FleetInput = {
  version: 1,
  name: 'writers',
  agents: [
    {
      name: 'writer',
      type: 'llm',
      systemPrompt: 'Write well.',
      provider: { id: 'openai', model: 'gpt-4o', temperature: 0.7 },
    },
    { name: 'human', type: 'human' },
    {
      name: 'panel',
      type: 'team',
      fleet: {
        version: 1,
        name: 'inner',
        agents: [{ name: 'critic', provider: { id: 'ollama', model: 'llama3' } }],
        team: { pattern: 'round-robin' },
      },
    },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 10 },
};

const source = {
  sessionId: 's1',
  atMessage: 3,
  from: 'writer',
  text: 'The first draft.',
  fleet,
  speakers: ['writer', 'panel/critic'],
  needProvider: [],
};

describe('the fork draft', () => {
  it('lists every agent, nested teams as team/agent, with the settings a fork may change', () => {
    expect(agentsOfFleetSpec(fleet)).toEqual([
      {
        path: 'writer',
        type: 'llm',
        systemPrompt: 'Write well.',
        provider: 'openai',
        model: 'gpt-4o',
        temperature: 0.7,
      },
      { path: 'human', type: 'human', systemPrompt: '', provider: '', model: '', temperature: null },
      {
        path: 'panel/critic',
        type: 'llm',
        systemPrompt: '',
        provider: 'ollama',
        model: 'llama3',
        temperature: null,
      },
    ]);
  });

  it('sends only what changed, so the fork is labelled with it', () => {
    const draft = createDraft(source);
    expect(forkInputOf(draft, true)).toEqual({ sessionId: 's1', atMessage: 3, run: true });
    expect(describeDraft(draft)).toEqual([]);

    draft.text = 'A bolder draft.';
    draft.agents[2] = { ...draft.agents[2]!, model: 'qwen2', temperature: 0.2 };
    draft.agents[0] = { ...draft.agents[0]!, temperature: null };
    draft.termination = { type: 'max-messages', max: 4 };
    draft.title = '  Bolder  ';
    expect(forkInputOf(draft, false)).toEqual({
      sessionId: 's1',
      atMessage: 3,
      run: false,
      text: 'A bolder draft.',
      agents: [
        { agent: 'writer', temperature: null },
        { agent: 'panel/critic', model: 'qwen2', temperature: 0.2 },
      ],
      termination: { type: 'max-messages', max: 4 },
      title: 'Bolder',
    });
    expect(describeDraft(draft)).toEqual([
      'message 3 edited',
      'writer: temperature default',
      'panel/critic: model qwen2, temperature 0.2',
      'stop conditions changed',
    ]);
    expect(checkForkInput(forkInputOf(draft, true))).toEqual([]);
  });

  it('blocks running an imported session until each agent without a provider has one and a model', () => {
    const draft = createDraft({
      ...source,
      fleet: null,
      speakers: ['alice', 'bob'],
      needProvider: ['alice', 'bob'],
    });
    expect(draft.agents.map((agent) => agent.path)).toEqual(['alice', 'bob']);
    expect(runBlocker(draft)).toMatch(/choose a provider and a model for alice, bob/);
    draft.agents[0] = { ...draft.agents[0]!, provider: 'ollama', model: 'llama3' };
    expect(runBlocker(draft)).toMatch(/for bob \(/);
    draft.agents[1] = { ...draft.agents[1]!, provider: 'openai', model: '  ' };
    expect(runBlocker(draft)).toMatch(/for bob \(/);
    draft.agents[1] = { ...draft.agents[1]!, model: 'gpt-4o-mini' };
    expect(runBlocker(draft)).toBeNull();
    // Mapping an agent sends its provider and model even though nothing "changed" from a preset.
    expect(forkInputOf(draft, true).agents).toEqual([
      { agent: 'alice', provider: 'ollama', model: 'llama3' },
      { agent: 'bob', provider: 'openai', model: 'gpt-4o-mini' },
    ]);
  });

  it('explains bad values in sentences, never as a schema dump', () => {
    const draft = createDraft(source);
    draft.agents[0] = { ...draft.agents[0]!, temperature: 5 };
    draft.termination = { type: 'text-mention', text: '' };
    const problems = checkForkInput(forkInputOf(draft, true));
    expect(problems).toEqual([
      'writer: temperature must be between 0 and 2.',
      expect.stringMatching(/^The stop conditions are incomplete/),
    ]);
    for (const problem of problems) expect(problem).not.toMatch(/[{}[\]]|invalid_type|too_big/);
    expect(
      checkForkInput({
        ...forkInputOf(draft, true),
        agents: [],
        termination: undefined,
        text: 'x'.repeat(100_001),
      }),
    ).toEqual(['The message text is too long (at most 100,000 characters).']);
  });
});

describe('message numbers', () => {
  it('number messages in the order the store lists them: by the seq each completed at', () => {
    const log = new EventLog().start();
    log.say('task', 'user', 'planner', ['Write a haiku']);
    log.say('m2', 'planner', 'writer', ['Plan']);
    // Two messages stream at once: m4 starts later but completes first.
    log.add('writer', {
      kind: 'message.started',
      payload: { messageId: 'm3', threadId: 'th1', parentId: null, from: 'writer', to: '*', kind: 'text' },
    });
    log.say('m4', 'critic', '*', ['Quick note']);
    const messageLog = new MessageLog();
    for (const event of log.events) messageLog.append(event);
    const streaming = messageLog.indexOf('m3');
    expect(streaming).toBeDefined();
    expect(messageNumberOf(messageLog, 'task')).toBe(1);
    expect(messageNumberOf(messageLog, 'm2')).toBe(2);
    // m3 is still being written: the store lists it at the seq it started at, before m4.
    expect(messageNumberOf(messageLog, 'm3')).toBe(3);
    expect(messageNumberOf(messageLog, 'm4')).toBe(4);
    expect(messageNumberOf(messageLog, 'nope')).toBeNull();
    expect(forkPointBlocker(messageLog.entries[streaming!]!)).toMatch(/still being written/);

    log.add('writer', {
      kind: 'message.completed',
      payload: {
        message: {
          id: 'm3',
          threadId: 'th1',
          parentId: null,
          from: 'writer',
          to: '*',
          kind: 'text',
          content: 'Done',
          meta: {},
          state: 'complete',
          t: 0,
        },
      },
    });
    messageLog.append(log.events.at(-1)!);
    // Completed after m4, it moves behind it, as `show` prints them.
    expect(messageNumberOf(messageLog, 'm4')).toBe(3);
    expect(messageNumberOf(messageLog, 'm3')).toBe(4);
    expect(forkPointBlocker(messageLog.entries[streaming!]!)).toBeNull();
  });

  it('fork at the playhead from the last message complete there', () => {
    const log = new EventLog().start();
    log.say('task', 'user', 'planner', ['Write a haiku']);
    const afterTask = log.events.length;
    log.say('m2', 'planner', 'writer', ['Plan']);
    const messageLog = new MessageLog();
    for (const event of log.events) messageLog.append(event);
    expect(forkPointAt(messageLog, 1)).toBeNull();
    expect(forkPointAt(messageLog, afterTask)).toMatchObject({ atMessage: 1, entry: { id: 'task' } });
    expect(forkPointAt(messageLog, afterTask + 2)).toMatchObject({ atMessage: 1 });
    expect(forkPointAt(messageLog, log.events.length)).toMatchObject({ atMessage: 2, entry: { id: 'm2' } });
  });
});

function node(
  id: string,
  parentId: string | null,
  depth: number,
  atMessage: number | null,
  label = '',
): FamilyNode {
  return {
    sessionId: id,
    parentId,
    forkOf: parentId && atMessage ? { sessionId: parentId, atMessage } : null,
    title: id,
    status: 'completed',
    stopReason: null,
    messageCount: 5,
    createdAt: 0,
    depth,
    forks: 0,
    label,
    changes: [],
  };
}

describe('family trees', () => {
  const family: Family = {
    rootId: 'root',
    sessionId: 'b',
    nodes: [
      node('root', null, 0, null),
      node('a', 'root', 1, 3, 'message 3 edited'),
      node('b', 'a', 2, 5, 'writer: model llama3'),
      node('c', 'root', 1, 2, ''),
      node('orphan', 'gone', 3, 4, 'x'),
    ],
    truncated: true,
  };

  it('labels forks with where they start and what changed, and marks the current one', () => {
    const rows = familyRows(family);
    expect(rows.map((row) => [row.node.sessionId, row.depth, row.current, row.label])).toEqual([
      ['root', 0, false, 'original'],
      ['a', 1, false, 'at #3 · message 3 edited'],
      ['b', 2, true, 'at #5 · writer: model llama3'],
      ['c', 1, false, 'at #2 · same as parent'],
      // Its parent was left out of a truncated answer: drawn under the root.
      ['orphan', 1, false, 'at #4 · x'],
    ]);
    expect(forkLabel(family.nodes[0]!)).toBe('original');
    expect(lineageOf(family, 'b')).toEqual(['root', 'a', 'b']);
    expect(lineageOf(family, 'missing')).toEqual([]);
  });

  it('groups a page of the list into families led by their root', () => {
    const item = (id: string, rootId: string | null, size = 1): SessionListItem =>
      ({
        id,
        title: id,
        ...(rootId ? { family: { rootId, size, forks: 0 } } : {}),
      }) as SessionListItem;
    const groups = groupFamilies([
      item('fork2', 'root', 3),
      item('alone', 'alone', 1),
      item('root', 'root', 3),
      item('legacy', null),
      item('fork9', 'elsewhere', 4),
    ]);
    expect(groups.map((group) => [group.rootId, group.lead.id, group.size, group.members.length])).toEqual([
      ['root', 'root', 3, 2],
      ['alone', 'alone', 1, 1],
      ['legacy', 'legacy', 1, 1],
      ['elsewhere', 'fork9', 4, 1],
    ]);
  });
});

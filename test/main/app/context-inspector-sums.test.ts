import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { MAX_CONTEXT_PARTS, type ContextGroup, type ContextPart } from '@shared/contract';
import { fleetSchema, type Fleet, type Message } from '@shared/domain';
import type { ImportedEvent } from '../../../src-main/history/ports';
import { agentViewOf, attributedChatMessages, type AttributedTurn } from '../../../src-main/orchestrator';
import { createApp } from '../../../src-main/app';
import { contextIndexes } from '../../../src-main/history/migrations/016-context-indexes';
import { contractApp } from '../../helpers/contract-app';
import { makeTempDir } from '../../helpers/temp-dir';
import { sampleEvents } from '../interop/export/sample-session';

/**
 * The sample run recorded with a fleet this app could run, varied so every way a message enters
 * an agent's context occurs: tasks from a person and from an agent, replies with and without
 * provider counts, broadcasts, tool calls and results of the asking agent and of others, an error message, and a kind one agent does not
 * accept (the coder takes no `function` messages, so those to it bounce).
 */
const FLEET: Fleet = fleetSchema.parse({
  version: 1,
  name: 'review-team',
  agents: [
    { name: 'planner', provider: { id: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } },
    {
      name: 'coder',
      provider: { id: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
      acceptedKinds: ['text', 'task', 'tool', 'error'],
    },
    { name: 'reviewer', type: 'scripted', script: [{ content: 'LGTM' }] },
  ],
  team: { pattern: 'round-robin', order: ['planner', 'coder', 'reviewer'] },
});

function* variedEvents(count: number): Generator<ImportedEvent> {
  let index = 0;
  for (const event of sampleEvents(count, (i) => `Reply ${i}: ${'word '.repeat(i % 13)}done.`)) {
    if (event.kind === 'session.started') {
      yield { ...event, payload: { ...event.payload, fleet: FLEET } };
      continue;
    }
    if (event.kind !== 'message.completed') {
      yield event;
      continue;
    }
    const message = { ...event.payload.message };
    index += 1;
    if (index % 4 === 2) delete message.usage;
    if (index % 6 === 3) message.to = '*';
    if (index === 1 || index === 52) message.kind = 'task';
    if (index === 101) message.kind = 'error';
    // The result of the call its sender made nine messages before (every fifth message calls).
    if (index % 10 === 9 && index > 10) {
      message.kind = 'tool';
      message.toolResults = [
        { callId: `call-${index - 10}`, name: 'search', content: `result ${index}`, isError: false },
      ];
    }
    yield { ...event, payload: { message } };
  }
}

type ExpectedPart = Pick<ContextPart, 'kind' | 'sender' | 'messageId' | 'tokens' | 'estimated' | 'preview'>;

/**
 * What the context of a call should be, made the long way: the agent's whole view routed and
 * turned into chat turns by the orchestrator's own code, the turns from messages completed before
 * the call started, each counted (a provider's count where it made the turn's text, the tokenizer
 * otherwise). A tool call answered only after the call is counted with its call, as documented.
 */
function expectedContext(agent: string, all: ReadonlyArray<Message & { seq: number }>, startSeq: number) {
  const spec = FLEET.agents.find((candidate) => candidate.name === agent)!;
  const seqOf = new Map(all.map((message) => [message.id, message.seq]));
  const turns = attributedChatMessages(spec, agent, agentViewOf(FLEET, agent, all)).filter(
    ({ message }) => message === null || seqOf.get(message.id)! < startSeq,
  );
  const parts = turns.map((attributed): ExpectedPart => {
    const { turn, message } = attributed;
    const text =
      turn.role === 'assistant' && turn.toolCalls
        ? [turn.content, ...turn.toolCalls.map((call) => `${call.name}(${call.arguments})`)].join('\n')
        : turn.content;
    const completion = message?.usage?.completion ?? 0;
    let reported: number | null = null;
    if (completion > 0 && turn.role === 'assistant' && !turn.toolCalls) reported = completion;
    if (completion > 0 && turn.role === 'user' && message && message.from !== 'user')
      reported = completion + countTokens(`${message.from}: `);
    return {
      kind: kindOf(attributed),
      sender: message?.from ?? null,
      messageId: message?.id ?? null,
      tokens: reported ?? countTokens(text),
      estimated: reported === null,
      preview: text.slice(0, 160),
    };
  });
  const groups: ContextGroup[] = [];
  for (const part of parts) {
    let group = groups.find((found) => found.kind === part.kind && found.sender === part.sender);
    if (!group) {
      group = { kind: part.kind, sender: part.sender, parts: 0, tokens: 0, estimatedTokens: 0 };
      groups.push(group);
    }
    group.parts += 1;
    group.tokens += part.tokens;
    if (part.estimated) group.estimatedTokens += part.tokens;
  }
  return {
    groups,
    parts: parts.slice(-MAX_CONTEXT_PARTS),
    omittedParts: Math.max(0, parts.length - MAX_CONTEXT_PARTS),
  };
}

function kindOf({ turn, message }: AttributedTurn): ContextPart['kind'] {
  if (turn.role === 'system') return 'system';
  if (turn.role === 'tool') return 'tool-result';
  if (turn.role === 'assistant') return turn.toolCalls ? 'tool-call' : 'own';
  return message?.kind === 'task' ? 'task' : 'message';
}

describe('sessions.context sums a long view without reading it', () => {
  const contract = contractApp('suite', { watchStore: false });
  const { call } = contract;

  it('answers every turn as the whole view read through the orchestrator would', async () => {
    const meta = {
      title: 'Long',
      task: 'bench',
      fleetName: FLEET.name,
      source: 'test',
      createdAt: 0,
      tags: [],
    };
    const id = contract.app.store.importSession(meta, variedEvents(700));
    const all = contract.app.store.pageMessages(id, { limit: 1000 }).items;
    expect(all).toHaveLength(700);
    const asked = all.filter(
      (message, index) => message.from !== 'user' && (index % 11 === 0 || index > 690),
    );
    const kinds = new Set<string>();
    // Asked late to early and back: the inspector sums a call's view from either end of what it read.
    for (const message of [...asked].reverse().concat(asked)) {
      const start = contract.app.store.messageStart(id, message.id)!.startSeq;
      const expected = expectedContext(message.from, all, start);
      const context = await call('sessions.context', { id, messageId: message.id });
      expect({ id: message.id, groups: context.groups }).toEqual({ id: message.id, groups: expected.groups });
      expect(context.omittedParts).toBe(expected.omittedParts);
      expect(context.parts).toEqual(expected.parts);
      expect(context.countedTokens).toBe(expected.groups.reduce((sum, group) => sum + group.tokens, 0));
      for (const group of context.groups) kinds.add(group.kind);
    }
    expect([...kinds].sort()).toEqual(['message', 'own', 'system', 'task', 'tool-call', 'tool-result']);
    const last = await call('sessions.context', { id, messageId: asked[asked.length - 1]!.id });
    expect(last.omittedParts).toBeGreaterThan(0);
  });

  it('reads a fork through its parent: a shared message has the same context in both', async () => {
    const meta = {
      title: 'Parent',
      task: 'bench',
      fleetName: FLEET.name,
      source: 'test',
      createdAt: 0,
      tags: [],
    };
    const parent = contract.app.store.importSession(meta, variedEvents(400));
    const { sessionId: fork } = contract.app.store.createFork({
      parentId: parent,
      atMessage: 350,
      fleet: FLEET,
      changes: [],
    });
    const shared = contract.app.store.pageMessages(fork, { from: 'end', limit: 5 }).items;
    expect(shared.length).toBeGreaterThan(0);
    for (const message of shared.filter((candidate) => candidate.from !== 'user')) {
      const inFork = await call('sessions.context', { id: fork, messageId: message.id });
      const inParent = await call('sessions.context', { id: parent, messageId: message.id });
      expect(inFork).toEqual(inParent);
      expect(inFork.omittedParts + inFork.parts.length).toBeGreaterThan(MAX_CONTEXT_PARTS);
    }
  });

  it('answers the same on a store upgraded from the seq-ordered index (migration 17)', async () => {
    const temp = makeTempDir();
    const dataDir = join(temp.dir, 'data');
    const open = () =>
      createApp({ dataDir, surface: 'cli', seedSamples: false, pingIntervalMs: 0, watchStore: false });
    const meta = {
      title: 'Upgraded',
      task: 'bench',
      fleetName: FLEET.name,
      source: 'test',
      createdAt: 0,
      tags: [],
    };
    let app = open();
    const id = app.store.importSession(meta, variedEvents(300));
    const asked = app.store.pageMessages(id, { limit: 300 }).items.filter((_, index) => index % 37 === 5);
    const contexts = async () => {
      const answers = [];
      for (const message of asked)
        answers.push(await app.call('sessions.context', { id, messageId: message.id }));
      return answers;
    };
    const before = await contexts();
    await app.close();
    // The store as schema 16 left it: the seq-ordered index, and no group-ordered one.
    const db = new Database(join(dataDir, 'fleetscope.db'));
    db.exec('DROP INDEX message_rows_view_groups');
    contextIndexes.up(db);
    db.pragma('user_version = 16');
    db.close();
    app = open();
    try {
      const indexes = app.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'message_rows_%'")
        .pluck()
        .all();
      expect(indexes).toContain('message_rows_view_groups');
      expect(indexes).not.toContain('message_rows_context');
      expect(before.some((context) => context.groups.length > 3)).toBe(true);
      expect(await contexts()).toEqual(before);
    } finally {
      await app.close();
      temp.remove();
    }
  });
});

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message, RunEvent } from '@shared/domain';
import { exportSession } from '../../../../src-main/interop/export';
import { importFile } from '../../../../src-main/interop/import';
import { openTempHistory } from '../../../helpers/temp-store';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));
const opened: Array<ReturnType<typeof openTempHistory>> = [];
afterEach(() => opened.splice(0).forEach((history) => history.cleanup()));

function agentTurns(
  events: Iterable<RunEvent>,
): Array<Pick<Message, 'from' | 'content'> & { calls: string[]; results: string[] }> {
  const turns = [];
  for (const event of events) {
    if (event.kind !== 'message.completed') continue;
    const m = event.payload.message;
    if (m.from === 'user' || m.from === 'system') continue;
    turns.push({
      from: m.from,
      // A tool result is addressed by the runtime's rules on both sides, not by the trace.
      to: m.kind === 'tool' ? '' : m.to,
      content: m.kind === 'tool' ? '' : m.content,
      calls: (m.toolCalls ?? []).map((call) => `${call.id}:${call.name}:${call.arguments}`),
      results: (m.toolResults ?? []).map((result) => `${result.callId}:${result.name}:${result.content}`),
    });
  }
  return turns;
}

describe("Fleetscope's own OTLP export imports back", () => {
  it.each(['openai-messages-swarm-handoffs-swarmjs.json', 'autogen-history-3agents-tools-boano.json'])(
    '%s: the same agents, agent messages, tool calls and results',
    async (fixture) => {
      const history = openTempHistory();
      opened.push(history);
      const original = await importFile(REAL + fixture, history.store);
      const path = join(history.dir, 'export.otlp.json');
      await exportSession(history.store, original.sessionId, 'otlp', path);
      const back = await importFile(path, history.store);
      expect(back.format).toBe('otlp-json');
      const before = agentTurns(history.store.iterateEvents(original.sessionId));
      const after = agentTurns(history.store.iterateEvents(back.sessionId));
      expect(before.length).toBeGreaterThan(8);
      expect(after).toEqual(before);
      const fleetOf = (id: string) => history.store.getSession(id)?.summary.fleetName;
      expect(fleetOf(back.sessionId)).toBe(fleetOf(original.sessionId));
      const handoffs = (id: string) =>
        [...history.store.iterateEvents(id)].flatMap((e) =>
          e.kind === 'handoff' ? [[e.payload.from, e.payload.to]] : [],
        );
      expect(handoffs(back.sessionId)).toEqual(handoffs(original.sessionId));
    },
  );
});

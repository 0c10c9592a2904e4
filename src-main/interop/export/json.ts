import type { RunEvent } from '@shared/domain';
import { FLEETSCOPE_FORMAT, FLEETSCOPE_VERSION } from '../import/fleetscope-json';
import type { RenderInput } from './render-types';

/**
 * The complete, versioned export: `{format, version, session, fleet, events}`, one event per line.
 * Messages (with thread and parent ids, tool calls and results, usage) live in the
 * `message.completed` events, the stop reason in `session.stopped`. Import reads `format`,
 * `version` and `session` before `events` to stream, so this key order is part of the format.
 * `sessionId` is left out of each event: it is the session's id, and an import assigns a new one.
 */
export function* renderJson(input: RenderInput): Generator<string> {
  yield `{"format":${JSON.stringify(FLEETSCOPE_FORMAT)},"version":${FLEETSCOPE_VERSION},\n`;
  yield `"session":${JSON.stringify(input.summary)},\n`;
  yield `"fleet":${JSON.stringify(input.fleet)},\n"events":[`;
  let separator = '\n';
  for (const event of input.events) {
    yield separator + JSON.stringify(withoutSessionId(event));
    separator = ',\n';
  }
  yield '\n]}\n';
}

function withoutSessionId(event: RunEvent): Omit<RunEvent, 'sessionId'> {
  const { seq, t, agent, kind, payload } = event;
  return { seq, t, agent, kind, payload } as Omit<RunEvent, 'sessionId'>;
}

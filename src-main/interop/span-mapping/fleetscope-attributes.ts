import { LIVE_STATUSES, MESSAGE_KINDS, fleetSchema, sessionStatusSchema, type Fleet } from '@shared/domain';
import type { MessageKind, SessionStatus } from '@shared/domain';
import { parseJsonish, type AttributeReader } from './attribute-reader';
import { fleetscopeParticipant } from './span-values';

/**
 * The `fleetscope.*` attributes another Fleetscope's OTLP export adds to the GenAI ones
 * (history/export/otlp-mapper.ts), read back so the session arrives as it was sent.
 */

/** How the sending run ended, from the root span that carries `fleetscope.session.end`. */
export interface SessionEnding {
  status: Exclude<SessionStatus, (typeof LIVE_STATUSES)[number]>;
  stopReason: string;
}

/** Who said one input message, to whom, and of what kind (`fleetscope.input.messages`). */
export interface InputEnvelope {
  from: string;
  to: string;
  kind: MessageKind;
}

const KINDS: ReadonlySet<string> = new Set(MESSAGE_KINDS);
const LIVE: ReadonlySet<string> = new Set(LIVE_STATUSES);

/** The fleet as sent (`fleetscope.fleet`), or null when absent or not a valid fleet. */
export function readFleet(reader: AttributeReader): Fleet | null {
  const text = reader.text('fleetscope.fleet');
  if (text === undefined) return null;
  const parsed = fleetSchema.safeParse(parseJsonish(text));
  return parsed.success ? parsed.data : null;
}

/** The end of the session the span reports, or null when it reports none. */
export function readEnding(reader: AttributeReader): SessionEnding | null {
  const end = reader.take('fleetscope.session.end');
  const status = sessionStatusSchema.safeParse(reader.text('fleetscope.session.status'));
  const stopReason = reader.text('fleetscope.session.stop_reason');
  if (end !== true || !status.success || LIVE.has(status.data)) return null;
  return { status: status.data as SessionEnding['status'], stopReason: stopReason ?? 'The run ended.' };
}

/** The envelopes of a model call's input messages, by position; empty when not sent. */
export function readInputEnvelopes(reader: AttributeReader): Array<InputEnvelope | null> {
  const list = parseJsonish(reader.text('fleetscope.input.messages'));
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) return null;
    const { from, to, kind } = item as Record<string, unknown>;
    if (typeof from !== 'string' || typeof to !== 'string' || typeof kind !== 'string') return null;
    if (!KINDS.has(kind)) return null;
    return { from: fleetscopeParticipant(from), to: fleetscopeParticipant(to), kind: kind as MessageKind };
  });
}

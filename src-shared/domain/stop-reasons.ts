/**
 * Stop reasons in plain words. The runtime records a short code as a session's stop reason (the
 * termination condition that fired, `team-finished`, `cancelled`, `error`, ...; composite
 * conditions join the codes of every part that fired with " and "); imports and recovery record
 * a sentence. People see the sentence this module makes of either.
 */

/** Stop codes the runtime produces; every one has a sentence below. */
export const STOP_CODES = [
  'max-messages',
  'text-mention',
  'stop-message',
  'source-match',
  'handoff',
  'token-budget',
  'cost-budget',
  'agent-token-budget',
  'timeout',
  'external',
  'team-finished',
  'out-of-replies',
  'cancelled',
  'error',
] as const;
export type StopCode = (typeof STOP_CODES)[number];

/**
 * Stop reason of a fork created and not run yet: the store writes it, the runtime's resume fold
 * reads it to know the fork's run starts from the fork point.
 */
export const FORKED_STOP_REASON = 'forked';

/** Codes of termination conditions, which composites combine. */
const CONDITION_CODES = [
  'max-messages',
  'text-mention',
  'stop-message',
  'source-match',
  'handoff',
  'token-budget',
  'cost-budget',
  'agent-token-budget',
  'timeout',
  'external',
] as const;
type ConditionCode = (typeof CONDITION_CODES)[number];

export interface StopContext {
  /** Messages in the session, for "Stopped after 20 messages". */
  messages?: number | null;
}

function isConditionCode(value: string): value is ConditionCode {
  return (CONDITION_CODES as readonly string[]).includes(value);
}

export function isStopCode(value: string): value is StopCode {
  return (STOP_CODES as readonly string[]).includes(value);
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** What a condition did, to follow "Stopped". */
function conditionPhrase(code: ConditionCode, context: StopContext): string {
  switch (code) {
    case 'max-messages':
      return typeof context.messages === 'number' && context.messages > 0
        ? `after ${plural(context.messages, 'message', 'messages')}`
        : 'at its message limit';
    case 'text-mention':
      return 'when an agent said the agreed closing words';
    case 'stop-message':
      return 'when an agent sent a stop message';
    case 'source-match':
      return 'when the awaited agent replied';
    case 'handoff':
      return 'when the conversation was handed off';
    case 'token-budget':
      return 'at its token budget';
    case 'cost-budget':
      return 'at its cost budget';
    case 'agent-token-budget':
      return 'when an agent reached its token budget';
    case 'timeout':
      return 'at its time limit';
    case 'external':
      return 'on request';
  }
}

function codeSentence(code: StopCode, context: StopContext): string {
  switch (code) {
    case 'team-finished':
      return 'Finished: every agent had its turn';
    case 'out-of-replies':
      return 'Finished: the scripted agents said everything they had to say';
    case 'cancelled':
      return 'Cancelled before the end';
    case 'error':
      return 'Ended by an error';
    default:
      return `Stopped ${conditionPhrase(code, context)}`;
  }
}

/**
 * A stop reason as a sentence (no final full stop, so it fits a list row). A code the runtime
 * produces becomes words; a composite of conditions names each part; anything else (a sentence
 * an import or recovery recorded) is shown as it is.
 */
export function stopReasonSentence(reason: string, context: StopContext = {}): string {
  const trimmed = reason.trim();
  if (isStopCode(trimmed)) return codeSentence(trimmed, context);
  const parts = trimmed.split(' and ');
  if (parts.length > 1 && parts.every(isConditionCode)) {
    const phrases = [...new Set(parts)].map((part) => conditionPhrase(part as ConditionCode, context));
    return `Stopped ${phrases.join(' and ')}`;
  }
  return trimmed;
}

import type { TerminationSpec } from '@shared/domain';

export type ConditionType = TerminationSpec['type'];

export const CONDITION_LABELS: Record<ConditionType, string> = {
  'max-messages': 'Message count reaches',
  'text-mention': 'A message mentions',
  'token-budget': 'Tokens used reach',
  'cost-budget': 'Cost reaches (US$)',
  'agent-token-budget': 'One agent’s tokens reach',
  timeout: 'Time passes',
  handoff: 'Handoff to',
  'stop-message': 'An agent sends a stop message',
  external: 'The user presses Stop',
  'source-match': 'One of these agents speaks',
  and: 'All of (AND)',
  or: 'Any of (OR)',
};

/** A new condition of a type, with values a user would start from. */
export function defaultCondition(type: ConditionType, agents: readonly string[]): TerminationSpec {
  switch (type) {
    case 'max-messages':
      return { type, max: 20 };
    case 'text-mention':
      return { type, text: 'DONE' };
    case 'token-budget':
      return { type, maxTokens: 20_000 };
    case 'cost-budget':
      return { type, maxCost: 1 };
    case 'agent-token-budget':
      return { type, maxTokens: 10_000 };
    case 'timeout':
      return { type, seconds: 300 };
    case 'handoff':
      return { type, target: 'user' };
    case 'stop-message':
    case 'external':
      return { type };
    case 'source-match':
      return { type, sources: agents.slice(0, 1).length ? agents.slice(0, 1) : ['user'] };
    case 'and':
    case 'or':
      return {
        type,
        conditions: [
          { type: 'text-mention', text: 'DONE' },
          { type: 'max-messages', max: 20 },
        ],
      };
  }
}

/** One line a person reads: `"DONE" mentioned OR 20 messages`. */
export function describeCondition(spec: TerminationSpec): string {
  switch (spec.type) {
    case 'max-messages':
      return `${spec.max} messages`;
    case 'text-mention':
      return `“${spec.text}” mentioned${spec.sources?.length ? ` by ${spec.sources.join(', ')}` : ''}`;
    case 'token-budget':
      return `${spec.maxTokens} tokens`;
    case 'cost-budget':
      return `$${spec.maxCost} spent`;
    case 'agent-token-budget':
      return `${spec.maxTokens} tokens by ${spec.agents?.length ? `one of ${spec.agents.join(', ')}` : 'one agent'}`;
    case 'timeout':
      return `${spec.seconds} s`;
    case 'handoff':
      return `handoff to ${spec.target}`;
    case 'stop-message':
      return 'a stop message';
    case 'external':
      return 'Stop pressed';
    case 'source-match':
      return `${spec.sources.join(' or ')} speaks`;
    case 'and':
    case 'or':
      return `(${spec.conditions.map(describeCondition).join(` ${spec.type.toUpperCase()} `)})`;
  }
}

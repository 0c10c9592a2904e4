import { assertNever, DEFAULT_MAX_MESSAGES, type TerminationSpec } from '@shared/domain';
import type { TerminationCondition } from './condition';
import { AllCondition, AnyCondition } from './compose';
import {
  HandoffCondition,
  MaxMessagesCondition,
  SourceMatchCondition,
  StopMessageCondition,
  TextMentionCondition,
} from './message-conditions';
import {
  AgentTokenBudgetCondition,
  CostBudgetCondition,
  ExternalCondition,
  TimeoutCondition,
  TokenBudgetCondition,
} from './runtime-conditions';

export function buildCondition(spec: TerminationSpec): TerminationCondition {
  switch (spec.type) {
    case 'max-messages':
      return new MaxMessagesCondition(spec.max, spec.countToolEvents ?? false);
    case 'text-mention':
      return new TextMentionCondition(spec.text, spec.sources);
    case 'token-budget':
      return new TokenBudgetCondition(spec.maxTokens);
    case 'cost-budget':
      return new CostBudgetCondition(spec.maxCost);
    case 'agent-token-budget':
      return new AgentTokenBudgetCondition(spec.maxTokens, spec.agents);
    case 'timeout':
      return new TimeoutCondition(spec.seconds);
    case 'handoff':
      return new HandoffCondition(spec.target);
    case 'stop-message':
      return new StopMessageCondition();
    case 'external':
      return new ExternalCondition();
    case 'source-match':
      return new SourceMatchCondition(spec.sources);
    case 'and':
      return new AllCondition(spec.conditions.map(buildCondition));
    case 'or':
      return new AnyCondition(spec.conditions.map(buildCondition));
    default:
      return assertNever(spec);
  }
}

/** The spec a fleet runs under: its own, or the default cap when it has none. */
export function effectiveTermination(spec: TerminationSpec | undefined): TerminationSpec {
  return spec ?? { type: 'max-messages', max: DEFAULT_MAX_MESSAGES };
}

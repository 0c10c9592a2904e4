export type { ConditionInput, StopResult, TerminationCondition } from './condition';
export { AllCondition, AnyCondition } from './compose';
export {
  HandoffCondition,
  MaxMessagesCondition,
  SourceMatchCondition,
  StopMessageCondition,
  TextMentionCondition,
} from './message-conditions';
export { ExternalCondition, TimeoutCondition, TokenBudgetCondition } from './runtime-conditions';
export { buildCondition, effectiveTermination } from './build';

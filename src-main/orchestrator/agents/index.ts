export { AgentFailure, TurnAborted, type Agent, type TurnContext } from './agent';
export { buildAgent, type AgentBuildServices } from './build';
export { LlmAgent, MAX_TOOL_ROUNDS } from './llm-agent';
export { ScriptedAgent } from './scripted-agent';
export { HumanAgent } from './human-agent';
export { TeamAgent, type NestedOutcome, type NestedTeamRunner } from './team-agent';
export { HANDOFF_TOOL_PREFIX, handoffToolName } from './handoff-tools';
export { toChatMessages, attributedChatMessages, systemPrompt, type AttributedTurn } from './chat-history';

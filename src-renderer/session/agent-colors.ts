/** The one colour per agent lives in src-shared, so exports draw agents in the app's colours. */
export { AGENT_PALETTE, agentColor, contrastRatio, relativeLuminance } from '@shared/domain/agent-colors';

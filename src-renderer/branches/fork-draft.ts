import type { z } from 'zod';
import {
  forkInputSchema,
  PROVIDER_IDS,
  type AgentChange,
  type ForkInput,
  type ProviderId,
} from '@shared/contract';
import { fleetMembers, terminationSpecSchema, type FleetInput, type TerminationSpec } from '@shared/domain';

/** One agent as the fork editor shows it: its address and the settings a fork may change. */
export interface AgentSettings {
  /** `writer`, or `team/writer` for an agent of a nested team. */
  path: string;
  /** llm, human, scripted or team; `unknown` for an imported session's speaker. */
  type: string;
  systemPrompt: string;
  /** A provider preset id, or '' when the agent has none (or one the presets do not name). */
  provider: ProviderId | '';
  model: string;
  /** null: the model's default temperature. */
  temperature: number | null;
}

/** What the fork editor edits. `original*` fields hold the values the fork starts from. */
export interface ForkDraft {
  sessionId: string;
  /** Message number as `show` prints it (1 = the task). */
  atMessage: number;
  /** Sender of the message forked at (it stays the sender of the edited text). */
  from: string;
  originalText: string;
  text: string;
  originalAgents: AgentSettings[];
  agents: AgentSettings[];
  originalTermination: TerminationSpec | undefined;
  termination: TerminationSpec | undefined;
  title: string;
  /** Agents that have no provider to run on (an imported session's speakers). */
  needProvider: string[];
}

function providerIdOf(id: string | undefined): ProviderId | '' {
  return id && (PROVIDER_IDS as readonly string[]).includes(id) ? (id as ProviderId) : '';
}

/** Every agent of a fleet with its settings, nested teams' agents as `team/agent`. */
export function agentsOfFleetSpec(fleet: FleetInput): AgentSettings[] {
  return fleetMembers(fleet)
    .filter(({ agent }) => !(agent.type === 'team' && agent.fleet))
    .map(({ address, agent }) => ({
      path: address,
      type: agent.type ?? 'llm',
      systemPrompt: agent.systemPrompt ?? '',
      provider: providerIdOf(agent.provider?.id),
      model: agent.provider?.model ?? '',
      temperature: agent.provider?.temperature ?? null,
    }));
}

/** Agents a fork can change: models and prompts matter only to LLM agents (and ones being mapped). */
export function isConfigurable(agent: AgentSettings, needProvider: readonly string[]): boolean {
  return agent.type === 'llm' || needProvider.includes(agent.path);
}

export interface DraftSource {
  sessionId: string;
  atMessage: number;
  from: string;
  text: string;
  /** The fleet the session ran with; null for an imported session. */
  fleet: FleetInput | null;
  /** Speakers of an imported session (used when there is no fleet). */
  speakers: readonly string[];
  needProvider: readonly string[];
}

/** A fresh draft: nothing changed yet. */
export function createDraft(source: DraftSource): ForkDraft {
  const fromFleet = source.fleet ? agentsOfFleetSpec(source.fleet) : [];
  const known = new Set(fromFleet.map((agent) => agent.path));
  const extra = [...source.speakers, ...source.needProvider]
    .filter((name, index, all) => !known.has(name) && all.indexOf(name) === index && name !== 'user')
    .map((path): AgentSettings => ({
      path,
      type: 'unknown',
      systemPrompt: '',
      provider: '',
      model: '',
      temperature: null,
    }));
  const agents = [...fromFleet, ...extra];
  // The snapshot passed the fleet schema when it ran; a stored one that no longer does has none here.
  const parsed = terminationSpecSchema.safeParse(source.fleet?.termination);
  const termination = parsed.success ? parsed.data : undefined;
  return {
    sessionId: source.sessionId,
    atMessage: source.atMessage,
    from: source.from,
    originalText: source.text,
    text: source.text,
    originalAgents: agents.map((agent) => ({ ...agent })),
    agents: agents.map((agent) => ({ ...agent })),
    originalTermination: termination,
    termination: termination ? structuredClone(termination) : undefined,
    title: '',
    needProvider: [...source.needProvider],
  };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The per-agent changes a draft makes (only fields that differ from where it started). */
export function agentChangesOf(draft: ForkDraft): AgentChange[] {
  const changes: AgentChange[] = [];
  for (const agent of draft.agents) {
    const before = draft.originalAgents.find((original) => original.path === agent.path);
    if (!before) continue;
    const change: AgentChange = { agent: agent.path };
    const mapping = draft.needProvider.includes(agent.path);
    if (agent.systemPrompt !== before.systemPrompt) change.systemPrompt = agent.systemPrompt;
    if (agent.provider && (agent.provider !== before.provider || mapping)) change.provider = agent.provider;
    const model = agent.model.trim();
    if (model && (model !== before.model || mapping)) change.model = model;
    if (agent.temperature !== before.temperature) change.temperature = agent.temperature;
    if (Object.keys(change).length > 1) changes.push(change);
  }
  return changes;
}

/** The `branches.fork` input for a draft: only what changed, so the fork's label names it. */
export function forkInputOf(draft: ForkDraft, run: boolean): ForkInput {
  const input: ForkInput = { sessionId: draft.sessionId, atMessage: draft.atMessage, run };
  if (draft.text !== draft.originalText) input.text = draft.text;
  const agents = agentChangesOf(draft);
  if (agents.length > 0) input.agents = agents;
  if (draft.termination && !sameJson(draft.termination, draft.originalTermination))
    input.termination = draft.termination;
  if (draft.title.trim()) input.title = draft.title.trim();
  return input;
}

/** Short sentences of what the draft changes, for the editor's summary line. */
export function describeDraft(draft: ForkDraft): string[] {
  const lines: string[] = [];
  if (draft.text !== draft.originalText) lines.push(`message ${draft.atMessage} edited`);
  for (const change of agentChangesOf(draft)) {
    const fields = [
      change.systemPrompt !== undefined ? 'system prompt' : null,
      change.provider !== undefined ? `provider ${change.provider}` : null,
      change.model !== undefined ? `model ${change.model}` : null,
      change.temperature !== undefined
        ? `temperature ${change.temperature === null ? 'default' : change.temperature}`
        : null,
    ].filter((field) => field !== null);
    lines.push(`${change.agent}: ${fields.join(', ')}`);
  }
  if (draft.termination && !sameJson(draft.termination, draft.originalTermination))
    lines.push('stop conditions changed');
  return lines;
}

/** Why the fork cannot run on as drafted (Save without running may still work); null when it can. */
export function runBlocker(draft: ForkDraft): string | null {
  const missing = draft.needProvider.filter((path) => {
    const agent = draft.agents.find((candidate) => candidate.path === path);
    return !agent || !agent.provider || !agent.model.trim();
  });
  if (missing.length === 0) return null;
  return (
    `To run on, choose a provider and a model for ${missing.join(', ')} ` +
    `(this session's agents have none), or save the fork without running.`
  );
}

const FIELD_NAMES: Record<string, string> = {
  text: 'The message text',
  systemPrompt: 'system prompt',
  provider: 'provider',
  model: 'model',
  temperature: 'temperature',
  title: 'The title',
  termination: 'The stop conditions',
  atMessage: 'The message number',
};

/** One issue of the fork input as a sentence a person reads (never a schema dump). */
function explainIssue(issue: z.ZodError['issues'][number], input: ForkInput): string {
  const [head, index, field] = issue.path;
  if (head === 'agents' && typeof index === 'number') {
    const agent = input.agents?.[index]?.agent ?? 'an agent';
    const name = typeof field === 'string' ? (FIELD_NAMES[field] ?? field) : 'settings';
    if (field === 'temperature') return `${agent}: temperature must be between 0 and 2.`;
    if (field === 'model') return `${agent}: the model name must not be empty (at most 300 characters).`;
    return `${agent}: the ${name} is not valid (${issue.message.toLowerCase()}).`;
  }
  if (head === 'termination')
    return 'The stop conditions are incomplete: every condition needs its value (a number above 0, a text, an agent).';
  if (head === 'text') return 'The message text is too long (at most 100,000 characters).';
  if (head === 'title') return 'The title is too long (at most 300 characters).';
  const name = typeof head === 'string' ? (FIELD_NAMES[head] ?? head) : 'The fork';
  return `${name} is not valid.`;
}

/** Checks the input before it is sent: a list of readable problems, empty when it is fine. */
export function checkForkInput(input: ForkInput): string[] {
  const parsed = forkInputSchema.safeParse(input);
  if (parsed.success) return [];
  return [...new Set(parsed.error.issues.map((issue) => explainIssue(issue, input)))];
}

import { agentChangeSchema, PROVIDER_IDS, type AgentChange } from '@shared/contract';
import { UsageError } from '../command';

/** Fields `--set AGENT.FIELD=VALUE` may change, with the spellings accepted for each. */
const FIELDS: Record<string, 'systemPrompt' | 'provider' | 'model' | 'temperature'> = {
  systemprompt: 'systemPrompt',
  'system-prompt': 'systemPrompt',
  system: 'systemPrompt',
  prompt: 'systemPrompt',
  provider: 'provider',
  model: 'model',
  temperature: 'temperature',
};

/**
 * Reads `--set AGENT.FIELD=VALUE` flags (FIELD: systemPrompt, provider, model or temperature;
 * AGENT may be `team/agent` for a nested team's agent) into one change per agent, checked by the
 * contract's schema. `temperature=default` removes the agent's temperature.
 */
export function parseAgentSettings(flags: readonly string[]): AgentChange[] {
  const changes = new Map<string, Record<string, unknown>>();
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    const target = equals < 0 ? flag : flag.slice(0, equals);
    const dot = target.lastIndexOf('.');
    if (equals < 0 || dot <= 0) {
      throw new UsageError(`--set takes AGENT.FIELD=VALUE (like writer.model=gpt-4o), got "${flag}".`);
    }
    const agent = target.slice(0, dot);
    const field = FIELDS[target.slice(dot + 1).toLowerCase()];
    const raw = flag.slice(equals + 1);
    if (field === undefined) {
      throw new UsageError(
        `--set can change systemPrompt, provider, model or temperature, not "${target.slice(dot + 1)}".`,
      );
    }
    const change = changes.get(agent) ?? { agent };
    if (field === 'temperature') {
      const value = raw === 'default' || raw === '' ? null : Number(raw);
      if (value !== null && !(Number.isFinite(value) && value >= 0 && value <= 2))
        throw new UsageError(
          `--set ${target}: a temperature is a number from 0 to 2 (or "default"), got "${raw}".`,
        );
      change.temperature = value;
    } else if (field === 'provider') {
      if (!(PROVIDER_IDS as readonly string[]).includes(raw))
        throw new UsageError(
          `--set ${target}: the provider is one of ${PROVIDER_IDS.join(', ')}, got "${raw}".`,
        );
      change.provider = raw;
    } else change[field] = raw;
    changes.set(agent, change);
  }
  return [...changes.values()].map((change) => {
    const parsed = agentChangeSchema.safeParse(change);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `--set ${String(change.agent)}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is not valid'}.`.replace(
          /\s+\./,
          '.',
        ),
      );
    }
    return parsed.data;
  });
}

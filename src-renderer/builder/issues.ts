import { fleetSchema, formatPath, validateFleet, type Fleet, type FleetIssue } from '@shared/domain';

export interface DraftIssues {
  errors: FleetIssue[];
  warnings: FleetIssue[];
}

/**
 * Checks a draft as the runtime will: the schema and the cross-field rules, both at once so the
 * user sees every problem (a bad model and a duplicate name) in one pass.
 */
export function checkDraft(fleet: Fleet, knownTools?: readonly string[]): DraftIssues {
  const issues: FleetIssue[] = [];
  const parsed = fleetSchema.safeParse(fleet);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = formatPath(issue.path);
      issues.push({ path, message: humanize(path, issue.message), severity: 'error' });
    }
  }
  try {
    issues.push(...validateFleet(fleet, knownTools ? { knownTools } : {}));
  } catch {
    // The draft is too malformed for the cross-field rules; the schema issues say why.
  }
  const seen = new Set<string>();
  const unique = issues.filter((issue) => {
    const key = `${issue.path}\n${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    errors: unique.filter((issue) => issue.severity === 'error'),
    warnings: unique.filter((issue) => issue.severity === 'warning'),
  };
}

/** Schema messages in words a person uses, for the fields people leave empty. */
function humanize(path: string, message: string): string {
  const tooSmall = message.startsWith('Too small');
  if (path.endsWith('provider.model') && tooSmall) return 'needs a model name';
  if (/(^|\.)agents$/.test(path) && tooSmall) return 'a team needs at least one agent';
  if (path.endsWith('workers') && tooSmall) return 'needs at least one worker';
  if (path.endsWith('candidates') && tooSmall) return 'a route needs at least one candidate';
  if (tooSmall && message.includes('string')) return 'must not be empty';
  return message;
}

/** Field paths of the fleet at `path` (nested team names) are prefixed like `agents[2].fleet.`. */
export function nestedPrefix(root: Fleet, path: readonly string[]): string | null {
  let fleet: Fleet | undefined = root;
  let prefix = '';
  for (const name of path) {
    const index: number = fleet?.agents.findIndex((agent) => agent.name === name) ?? -1;
    if (!fleet || index === -1) return null;
    prefix += `agents[${index}].fleet.`;
    fleet = fleet.agents[index]?.fleet;
  }
  return prefix;
}

/** The agent an issue belongs to in `fleet` (by `agents[i]` or a team reference), if any. */
export function agentOfIssue(fleet: Fleet, path: string): string | null {
  const byIndex = /^agents\[(\d+)\]/.exec(path);
  if (byIndex) return fleet.agents[Number(byIndex[1])]?.name ?? null;
  const handoff = /^team\.handoffs\.([A-Za-z][A-Za-z0-9_-]*)/.exec(path);
  if (handoff) return handoff[1] ?? null;
  return null;
}

/** A label a person reads instead of a field path. */
export function describePath(fleet: Fleet, path: string): string {
  const agent = agentOfIssue(fleet, path);
  if (agent) return `${agent} · ${path.replace(/^agents\[\d+\]\.?/, '') || 'agent'}`;
  if (path.startsWith('team')) return `team · ${path.slice(5) || fleet.team.pattern}`;
  if (path.startsWith('termination')) return 'termination';
  return path;
}

/** The inspector's control for an agent's field, by the field path after `agents[i].`. */
const AGENT_FIELDS: ReadonlyArray<[RegExp, string]> = [
  [/^name/, 'inspector-name'],
  [/^type/, 'inspector-type'],
  [/^role/, 'inspector-role'],
  [/^description/, 'inspector-description'],
  [/^systemPrompt/, 'inspector-prompt'],
  [/^provider\.model/, 'inspector-model'],
  [/^provider\.temperature/, 'inspector-temperature'],
  [/^provider\.maxTokens/, 'inspector-max-tokens'],
  [/^provider/, 'inspector-provider'],
];

/**
 * A CSS selector for the control that fixes the issue at `path`: an agent's field in the inspector,
 * the stop conditions, the team panel, or the fleet's name. Pure.
 */
export function fieldOfIssue(path: string): string {
  const field = /^agents\[\d+\]\.?(.*)$/.exec(path)?.[1];
  if (field !== undefined) {
    const testid = AGENT_FIELDS.find(([pattern]) => pattern.test(field))?.[1];
    return testid
      ? `[data-testid="${testid}"]`
      : '[data-testid="agent-inspector"] :is(input, select, textarea)';
  }
  if (path.startsWith('termination'))
    return '[data-testid="termination-editor"] :is(input, select, textarea, button)';
  if (path.startsWith('team')) return '[data-testid="pattern-select"]';
  return '[data-testid="fleet-name"]';
}

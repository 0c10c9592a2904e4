import { describe, expect, it } from 'vitest';
import { checkFleetToRun, FleetInvalidError, fleetSchema, parseFleet } from '@shared/domain';

const base = {
  version: 1,
  name: 'f',
  agents: [
    { name: 'a', type: 'scripted', script: [{ content: 'hi' }] },
    { name: 'b', type: 'scripted', script: [{ content: 'yo' }] },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 4 },
};

function issuesOf(input: unknown, knownTools?: string[]) {
  const result = parseFleet(input, knownTools ? { knownTools } : {});
  return result.ok ? result.warnings : result.issues;
}

describe('fleet validation', () => {
  it('accepts a good fleet without issues', () => {
    const result = parseFleet(base);
    expect(result.ok).toBe(true);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it('reports schema errors with the field path', () => {
    const issues = issuesOf({ ...base, agents: [{ name: '9lives', type: 'llm' }] });
    expect(issues[0]?.path).toBe('agents[0].name');
    expect(issues[0]?.message).toContain('must start with a letter');
  });

  it('reports duplicate names, reserved names and missing providers', () => {
    const issues = issuesOf({
      ...base,
      agents: [
        { name: 'a', type: 'scripted', script: [{ content: 'x' }] },
        { name: 'a', type: 'scripted', script: [{ content: 'x' }] },
        { name: 'user', type: 'human' },
        { name: 'gpt', type: 'llm' },
      ],
    });
    expect(issues.map((issue) => issue.path)).toEqual([
      'agents[1].name',
      'agents[2].name',
      'agents[3].provider',
    ]);
  });

  it('reports team references to agents that do not exist', () => {
    expect(issuesOf({ ...base, team: { pattern: 'sequential', order: ['a', 'ghost'] } })[0]).toMatchObject({
      path: 'team.order[1]',
      message: 'member "ghost" is not an agent in this fleet',
    });
    expect(
      issuesOf({ ...base, team: { pattern: 'swarm', start: 'a', handoffs: { a: ['zed'] } } })[0]?.path,
    ).toBe('team.handoffs.a[0]');
    expect(
      issuesOf({
        ...base,
        team: { pattern: 'selector', rules: [{ contains: 'x', candidates: ['q'] }], fallback: 'r' },
      }).map((issue) => issue.path),
    ).toEqual(['team.rules[0].candidates[0]', 'team.fallback']);
    expect(
      issuesOf({ ...base, team: { pattern: 'parallel', workers: ['a'], aggregator: 'a' } })[0]?.path,
    ).toBe('team.aggregator');
  });

  it('reports termination targets and sources that do not exist, deep in AND/OR', () => {
    const issues = issuesOf({
      ...base,
      termination: {
        type: 'or',
        conditions: [
          { type: 'max-messages', max: 3 },
          { type: 'and', conditions: [{ type: 'handoff', target: 'nobody' }] },
        ],
      },
    });
    expect(issues[0]?.path).toBe('termination.conditions[1].conditions[0].target');
  });

  it('validates nested team fleets with their full path', () => {
    const issues = issuesOf({
      ...base,
      agents: [
        ...base.agents,
        { name: 'squad', type: 'team', fleet: { ...base, agents: [{ name: 'x', type: 'llm' }] } },
      ],
    });
    expect(issues[0]?.path).toBe('agents[2].fleet.agents[0].provider');
  });

  it('names unknown tools when the runtime says which exist', () => {
    const issues = issuesOf(
      {
        ...base,
        agents: [{ name: 'a', type: 'scripted', script: [{ content: 'x' }], tools: ['calculator', 'shell'] }],
      },
      ['calculator'],
    );
    expect(issues[0]).toMatchObject({ path: 'agents[0].tools[1]', severity: 'error' });
  });

  it('warns (does not fail) when an open-ended team has no termination', () => {
    const { termination: _ignored, ...open } = base;
    const result = parseFleet(open);
    expect(result.ok).toBe(true);
    expect(result.ok && result.warnings[0]).toMatchObject({ path: 'termination', severity: 'warning' });
  });
});

describe('the check a fleet passes once before it runs', () => {
  const withTools = (tools: string[]) =>
    fleetSchema.parse({
      ...base,
      mcpServers: { memory: { command: 'node', args: ['server.js'] } },
      agents: [{ name: 'a', type: 'scripted', script: [{ content: 'x' }], tools }],
      team: { pattern: 'sequential' },
    });

  it('passes built-in tools and tools of declared MCP servers, refuses the rest naming the field', () => {
    expect(checkFleetToRun(withTools(['calculator', 'memory/read_graph']), ['calculator']).warnings).toEqual(
      [],
    );
    expect(() => checkFleetToRun(withTools(['teleport']), ['calculator'])).toThrow(FleetInvalidError);
    expect(() => checkFleetToRun(withTools(['teleport']), ['calculator'])).toThrow(
      /agents\[0\]\.tools\[0\]: unknown tool "teleport"/,
    );
    expect(() => checkFleetToRun(withTools(['files/read']), ['calculator'])).toThrow(/not in mcpServers/);
  });

  it('hands the fleet on unchanged, with its warnings as lines', () => {
    const { termination: _ignored, ...open } = base;
    const fleet = fleetSchema.parse(open);
    const checked = checkFleetToRun(fleet, []);
    expect(checked.fleet).toBe(fleet);
    expect(checked.warnings).toEqual([
      'termination: no termination condition: the run stops after 50 messages',
    ]);
  });
});

import { assertNever, type Fleet } from '@shared/domain';
import { SCRIPTED_PROVIDER, type ModelClientFactory } from '../../llm';
import { ParallelPattern } from './parallel';
import type { TeamPattern } from './pattern';
import { RoundRobinPattern } from './round-robin';
import { SelectorPattern, type RoutingDecision } from './selector';
import { SequentialPattern } from './sequential';
import { SwarmPattern } from './swarm';

export interface PatternServices {
  owner: string;
  memberName(address: string): string | null;
  models: ModelClientFactory;
  onDecision(decision: RoutingDecision): void;
  /** A recoverable failure of the selector model (the fallback speaks instead). */
  onSelectorFailure(failure: { code: string; message: string }): void;
}

export function buildPattern(fleet: Fleet, services: PatternServices): TeamPattern {
  const names = fleet.agents.map((agent) => agent.name);
  const team = fleet.team;
  switch (team.pattern) {
    case 'sequential':
      return new SequentialPattern(team.order ?? names, services.owner);
    case 'round-robin':
      return new RoundRobinPattern(team.order ?? names);
    case 'selector': {
      const selector = team.selector;
      const model =
        selector && selector.id !== SCRIPTED_PROVIDER
          ? { client: services.models(selector), name: selector.model }
          : null;
      return new SelectorPattern({
        spec: team,
        members: fleet.agents,
        model,
        memberName: services.memberName,
        onDecision: services.onDecision,
        onModelFailure: services.onSelectorFailure,
      });
    }
    case 'swarm':
      return new SwarmPattern(team.start, team.handoffs, new Set(names), services.memberName, services.owner);
    case 'parallel':
      return new ParallelPattern(team.workers, team.aggregator, services.owner);
    default:
      return assertNever(team);
  }
}

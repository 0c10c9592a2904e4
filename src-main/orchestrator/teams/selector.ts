import { BROADCAST, type AgentSpec, type Message, type RouteRule, type TeamSpec } from '@shared/domain';
import { ProviderError, type ModelClient } from '../../llm';
import { TurnAborted } from '../agents/agent';
import type { PatternState, RoundPlan, TeamPattern } from './pattern';

type SelectorSpec = Extract<TeamSpec, { pattern: 'selector' }>;

export interface RoutingDecision {
  candidates: string[];
  chosen: string;
  reason: string;
}

export interface SelectorOptions {
  spec: SelectorSpec;
  members: readonly AgentSpec[];
  /** The selector model, when the fleet configures one. */
  model: { client: ModelClient; name: string } | null;
  /** Member name of an envelope address, or null for the owner and strangers. */
  memberName(address: string): string | null;
  onDecision(decision: RoutingDecision): void;
  /** The selector model failed; the run goes on with the fallback speaker. */
  onModelFailure(failure: { code: string; message: string }): void;
}

function ruleMatches(rule: RouteRule, message: Message, sender: string | null): boolean {
  if (rule.contains !== undefined && !message.content.toLowerCase().includes(rule.contains.toLowerCase()))
    return false;
  if (rule.kind !== undefined && message.kind !== rule.kind) return false;
  if (rule.from !== undefined && rule.from !== (sender ?? message.from)) return false;
  return true;
}

function describeRule(rule: RouteRule, index: number): string {
  const parts = [
    rule.contains !== undefined ? `contains "${rule.contains}"` : null,
    rule.kind !== undefined ? `kind ${rule.kind}` : null,
    rule.from !== undefined ? `from ${rule.from}` : null,
  ].filter((part) => part !== null);
  return `rule ${index + 1} (${parts.length > 0 ? parts.join(', ') : 'always'})`;
}

/**
 * Routed group chat. The last message is matched against the routing table; when a rule names
 * several candidates, or none matches, the selector model picks from the agents' descriptions;
 * when there is no model or it fails or answers nonsense, the fallback speaks.
 */
export class SelectorPattern implements TeamPattern {
  private readonly names: string[];

  constructor(private readonly options: SelectorOptions) {
    this.names = options.members.map((member) => member.name);
  }

  taskReceiver(): string {
    return BROADCAST;
  }

  reset(): void {}

  /** Stateless: every decision reads the conversation. */
  restore(): void {}

  async next(state: PatternState): Promise<RoundPlan> {
    const decision = await this.decide(state);
    this.options.onDecision(decision);
    return { type: 'round', speakers: [{ name: decision.chosen, receiver: BROADCAST }] };
  }

  private eligible(candidates: readonly string[], lastSpeaker: string | null): string[] {
    if (this.options.spec.allowRepeatedSpeaker || candidates.length <= 1) return [...candidates];
    const others = candidates.filter((name) => name !== lastSpeaker);
    return others.length > 0 ? others : [...candidates];
  }

  private async decide(state: PatternState): Promise<RoutingDecision> {
    const last = state.recent.at(-1) ?? state.history.at(-1);
    if (last) {
      const sender = this.options.memberName(last.from);
      const index = this.options.spec.rules.findIndex((rule) => ruleMatches(rule, last, sender));
      const rule = this.options.spec.rules[index];
      if (rule) {
        const candidates = this.eligible(rule.candidates, state.lastSpeaker);
        const why = `${describeRule(rule, index)} matched`;
        if (candidates.length === 1 || !this.options.model) {
          return { candidates, chosen: candidates[0] as string, reason: why };
        }
        return this.askModel(candidates, state, why);
      }
    }
    const candidates = this.eligible(this.names, state.lastSpeaker);
    if (this.options.model) return this.askModel(candidates, state, 'no rule matched');
    return this.fallback(candidates, state.lastSpeaker, 'no rule matched and there is no selector model');
  }

  private fallback(candidates: string[], lastSpeaker: string | null, why: string): RoutingDecision {
    const configured = this.options.spec.fallback;
    if (configured !== undefined)
      return { candidates, chosen: configured, reason: `${why}; fallback ${configured}` };
    // Without a configured fallback, the next agent in fleet order after the last speaker.
    const start = lastSpeaker === null ? -1 : this.names.indexOf(lastSpeaker);
    const chosen = this.names[(start + 1) % this.names.length] as string;
    return { candidates, chosen, reason: `${why}; next in order: ${chosen}` };
  }

  private async askModel(candidates: string[], state: PatternState, why: string): Promise<RoutingDecision> {
    const model = this.options.model;
    if (!model) return this.fallback(candidates, state.lastSpeaker, why);
    const roster = this.options.members
      .filter((member) => candidates.includes(member.name))
      .map((member) => `- ${member.name}: ${member.description || member.role || 'no description'}`)
      .join('\n');
    const transcript = state.history
      .slice(-10)
      .map((message) => `${message.from}: ${message.content.slice(0, 500)}`)
      .join('\n');
    try {
      const result = await model.client.complete(
        {
          model: model.name,
          messages: [
            {
              role: 'system',
              content:
                'You pick who speaks next in a group conversation. Answer with one name from the list and nothing else.',
            },
            {
              role: 'user',
              content: `Agents:\n${roster}\n\nConversation so far:\n${transcript}\n\nWho speaks next?`,
            },
          ],
          temperature: 0,
        },
        { signal: state.signal },
      );
      const answer = result.content.trim();
      const chosen =
        candidates.find((name) => name.toLowerCase() === answer.toLowerCase()) ??
        candidates
          .map((name) => ({ name, at: answer.toLowerCase().indexOf(name.toLowerCase()) }))
          .filter((entry) => entry.at >= 0)
          .sort((a, b) => a.at - b.at)[0]?.name;
      if (chosen !== undefined)
        return { candidates, chosen, reason: `${why}; the selector model chose ${chosen}` };
      return this.fallback(
        candidates,
        state.lastSpeaker,
        `${why}; the selector model answered "${answer.slice(0, 60)}", which names no candidate`,
      );
    } catch (error) {
      if (error instanceof ProviderError && error.code === 'aborted') throw new TurnAborted();
      const detail = error instanceof Error ? error.message : String(error);
      const decision = this.fallback(
        candidates,
        state.lastSpeaker,
        `${why}; the selector model failed (${detail})`,
      );
      this.options.onModelFailure({
        code: 'selector-failed',
        message: `The selector model failed, so ${decision.chosen} speaks next instead: ${detail}`,
      });
      return decision;
    }
  }
}

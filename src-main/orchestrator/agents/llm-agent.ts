import type { AgentSpec, ProviderRef, TokenUsage, UsagePricer } from '@shared/domain';
import { ProviderError, type ModelClient } from '../../llm';
import type { MessageWriter } from '../runtime/bus';
import type { ToolRegistry } from '../tools';
import { AgentFailure, TurnAborted, type Agent, type TurnContext } from './agent';
import { ChatTranscript } from './chat-history';
import { handoffToolSpecs } from './handoff-tools';
import { runToolCalls, type ToolCallServices } from './tool-calls';

/** Model calls per turn at most; a model that keeps calling tools is stopped there. */
export const MAX_TOOL_ROUNDS = 8;

export interface LlmAgentServices extends ToolCallServices {
  client: ModelClient;
  /** Describes a team member for handoff tool descriptions. */
  describe(name: string): string;
  /** Prices each call's usage (Settings' overrides, then the price table); null leaves it to the store. */
  pricer?: UsagePricer | null;
}

/** An agent backed by an OpenAI-compatible chat model, streaming, with tools and handoffs. */
export class LlmAgent implements Agent {
  private readonly provider: ProviderRef;
  /** The chat messages of this agent's view so far (the address is the same every turn). */
  private transcript: ChatTranscript | null = null;

  constructor(
    readonly spec: AgentSpec,
    private readonly services: LlmAgentServices,
  ) {
    if (!spec.provider) throw new Error(`Agent ${spec.name} has no provider.`);
    this.provider = spec.provider;
  }

  reset(): void {}

  async turn(context: TurnContext): Promise<void> {
    const tools = [
      ...this.services.tools.specs(this.spec.tools),
      ...handoffToolSpecs(context.handoffTargets, (name) => this.services.describe(name)),
    ];
    for (let round = 0; round < MAX_TOOL_ROUNDS; round += 1) {
      context.setStatus('thinking');
      const writer = context.open();
      const called = await this.callModel(context, writer, tools.length > 0 ? tools : undefined);
      const result = { ...called, usage: called.usage && this.recorded(called.usage) };
      if (result.toolCalls.length === 0) {
        writer.complete({
          to: context.receiver,
          kind: 'text',
          content: result.content,
          ...(result.usage ? { usage: result.usage } : {}),
        });
        return;
      }
      const request = writer.complete({
        to: context.address,
        kind: 'function',
        content: result.content,
        toolCalls: result.toolCalls,
        ...(result.usage ? { usage: result.usage } : {}),
      });
      const handedOff = (await runToolCalls(context, this.services, request, result.toolCalls)) !== null;
      // Even when the run is to stop after this turn, the model answers its tool results first:
      // a turn is never left half done (cancellation and timeouts abort the call instead).
      if (handedOff) return;
    }
    context.emit({
      kind: 'error',
      payload: {
        code: 'tool-loop',
        message: `${this.spec.name} kept calling tools for ${MAX_TOOL_ROUNDS} rounds.`,
      },
    });
    context.send({ kind: 'text', content: `(stopped after ${MAX_TOOL_ROUNDS} rounds of tool calls)` });
  }

  /**
   * A call's usage as recorded: priced by this agent's provider and model when a pricer is given.
   * The provider id is not kept on it (the fleet names each agent's provider already).
   */
  private recorded(usage: TokenUsage): TokenUsage {
    const pricer = this.services.pricer;
    return pricer ? { ...usage, cost: pricer({ ...usage, provider: this.provider.id }) } : usage;
  }

  private async callModel(
    context: TurnContext,
    writer: MessageWriter,
    tools: ReturnType<ToolRegistry['specs']> | undefined,
  ) {
    let streaming = false;
    const transcript = this.transcriptFor(context.address);
    const messages = transcript.messages(context.history());
    try {
      return await this.services.client.complete(
        {
          model: this.provider.model,
          messages,
          plain: transcript.plain,
          ...(tools ? { tools } : {}),
          ...(this.provider.temperature !== undefined ? { temperature: this.provider.temperature } : {}),
          ...(this.provider.maxTokens !== undefined ? { maxTokens: this.provider.maxTokens } : {}),
        },
        {
          signal: context.signal,
          onText: (text) => {
            if (!streaming) {
              streaming = true;
              context.setStatus('streaming');
            }
            writer.delta(text);
          },
          onToolCallStarted: () => writer.reopen({ to: context.address, kind: 'function' }),
        },
      );
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      const partial = writer.started
        ? writer.complete({ to: context.receiver, kind: 'text', content: error.partial.content }, 'partial')
        : null;
      if (error.code === 'aborted') throw new TurnAborted();
      context.emit({
        kind: 'error',
        payload: { code: error.code, message: error.message, messageId: partial?.id ?? null },
      });
      context.setStatus('error');
      throw new AgentFailure(error.code, `${this.spec.name}: ${error.message}`);
    }
  }

  private transcriptFor(address: string): ChatTranscript {
    if (this.transcript?.address !== address) this.transcript = new ChatTranscript(this.spec, address);
    return this.transcript;
  }
}

import type { AgentSpec, Message, ScriptedReply, ToolCall } from '@shared/domain';
import { modelToolName } from '../tools';
import { newId } from '../runtime/ids';
import { TurnAborted, type Agent, type TurnContext } from './agent';
import { runToolCalls, type ToolCallServices } from './tool-calls';

/** Characters per simulated streaming chunk when the reply does not say. */
const DEFAULT_CHUNK_SIZE = 12;
/** With a typing pace, chunks come about this often: smooth to watch, few events. */
const PACED_CHUNKS_PER_SECOND = 20;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new TurnAborted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new TurnAborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Chunk size and the pause between chunks for one reply. */
export function streamingPace(
  reply: Pick<ScriptedReply, 'chunkSize' | 'delayMs'>,
  charsPerSecond: number | undefined,
): { size: number; delayMs: number } {
  if (reply.delayMs !== undefined || charsPerSecond === undefined || !(charsPerSecond > 0))
    return { size: reply.chunkSize ?? DEFAULT_CHUNK_SIZE, delayMs: reply.delayMs ?? 0 };
  const size = reply.chunkSize ?? Math.max(1, Math.round(charsPerSecond / PACED_CHUNKS_PER_SECOND));
  return { size, delayMs: Math.round((size * 1000) / charsPerSecond) };
}

/** Longest task text put into a reply: a quote, not the whole brief. */
const MAX_TASK_QUOTE = 160;

/**
 * A reply with `{{task}}` replaced by the task it answers: the latest task message it saw (a
 * continued session has a new one), first line only, shortened with an ellipsis. Without a task
 * the placeholder reads "the task".
 */
export function fillTask(content: string, history: readonly Message[]): string {
  if (!content.includes('{{task}}')) return content;
  const task = history.findLast((message) => message.kind === 'task')?.content ?? '';
  const line =
    task
      .split(/\r?\n/)
      .find((text) => text.trim() !== '')
      ?.trim() ?? '';
  const chars = [...line];
  const quote = chars.length > MAX_TASK_QUOTE ? `${chars.slice(0, MAX_TASK_QUOTE - 1).join('')}…` : line;
  return content.replaceAll('{{task}}', quote || 'the task');
}

/**
 * Replies from the fleet's `script`, in order (cycling when `loop` is set), streamed in chunks to
 * look like a model, at the agent's typing pace (`charsPerSecond`) unless a reply sets its own
 * `delayMs`. Once the script is used up the agent has said its part: its turns end without a
 * message and `finished` is true, so the team can end the run when nobody has anything left.
 */
export class ScriptedAgent implements Agent {
  private position = 0;

  /** `tools` is needed only by replies that call tools. */
  constructor(
    readonly spec: AgentSpec,
    private readonly tools: ToolCallServices | null = null,
  ) {}

  reset(): void {
    this.position = 0;
  }

  /** Nothing more to say: the script is used up (a looping script never is). */
  get finished(): boolean {
    const length = this.spec.script?.length ?? 0;
    return length === 0 || (!this.spec.loop && this.position >= length);
  }

  /** Each turn takes one reply (an exhausted script takes none; a looping one wraps). */
  restoreTurns(turns: number): void {
    const length = this.spec.script?.length ?? 0;
    if (length === 0 || turns <= 0) this.position = 0;
    else if (!this.spec.loop) this.position = Math.min(turns, length);
    else this.position = ((turns - 1) % length) + 1;
  }

  private nextReply(): ScriptedReply | null {
    const script = this.spec.script ?? [];
    if (script.length === 0) return null;
    if (this.position >= script.length) {
      if (!this.spec.loop) return null;
      this.position = 0;
    }
    const reply = script[this.position] ?? null;
    this.position += 1;
    return reply;
  }

  async turn(context: TurnContext): Promise<void> {
    const scripted = this.nextReply();
    // Its part is done: the turn ends quietly (no error, nothing for the others to answer).
    if (scripted === null) return;
    const reply = { ...scripted, content: fillTask(scripted.content, context.history()) };
    if (reply.toolCalls !== undefined && reply.toolCalls.length > 0) {
      const handedOff = await this.callTools(context, reply);
      if (handedOff || reply.content === '') return;
    }
    const writer = context.open({ to: reply.to ?? context.receiver, kind: reply.kind ?? 'text' });
    const { size, delayMs: delay } = streamingPace(reply, this.spec.charsPerSecond);
    context.setStatus('streaming');
    try {
      for (let index = 0; index < reply.content.length; index += size) {
        if (delay > 0 && index > 0) await pause(delay, context.signal);
        if (context.signal.aborted) throw new TurnAborted();
        writer.delta(reply.content.slice(index, index + size));
      }
    } catch (error) {
      if (writer.started)
        writer.complete(
          { to: reply.to ?? context.receiver, kind: reply.kind ?? 'text', content: writer.content },
          'partial',
        );
      throw error;
    }
    const message = writer.complete({
      to: reply.to ?? context.receiver,
      kind: reply.kind ?? 'text',
      content: reply.content,
    });
    if (reply.handoff !== undefined) {
      context.handoff(
        reply.handoff,
        `${this.spec.name} hands the conversation to ${reply.handoff}.`,
        message.id,
      );
    }
  }

  /**
   * Makes the reply's tool calls as a model would (a function message, the calls, a tool message
   * with the results); returns true when one of them handed the conversation off.
   */
  private async callTools(context: TurnContext, reply: ScriptedReply): Promise<boolean> {
    if (this.tools === null) throw new Error(`${this.spec.name} has no tools to call.`);
    const calls: ToolCall[] = (reply.toolCalls ?? []).map((call) => ({
      id: newId('call'),
      name: modelToolName(call.name),
      arguments: JSON.stringify(call.arguments),
    }));
    context.setStatus('thinking');
    const request = context.send({ to: context.address, kind: 'function', content: '', toolCalls: calls });
    return (await runToolCalls(context, this.tools, request, calls)) !== null;
  }
}

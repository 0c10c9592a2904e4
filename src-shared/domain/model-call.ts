import { z } from 'zod';

/** One message as a model was sent it or answered it, whichever convention the trace used. */
export const rawMessageSchema = z.object({
  /** As the trace named it: system, user, assistant, tool… */
  role: z.string(),
  name: z.string().optional(),
  text: z.string(),
  /** Tool calls the message made; an id is null where the instrumentation recorded none. */
  toolCalls: z
    .array(z.object({ id: z.string().nullable(), name: z.string(), arguments: z.string() }))
    .optional(),
  /** For a tool result: the call it answers. */
  toolCallId: z.string().optional(),
});
export type RawMessage = z.infer<typeof rawMessageSchema>;

/**
 * The messages an agent's model call was sent again from its previous call: the first `count` of
 * what call `callId` was sent followed by what it answered. Stored so that a chat that resends its
 * whole history grows the log by what is new, not by the history each time.
 */
export const sentAgainSchema = z.object({ callId: z.string(), count: z.number().int().nonnegative() });
export type SentAgain = z.infer<typeof sentAgainSchema>;

/** A model call as it was made, expanded: every message it was sent, and its answer. */
export interface ModelCallMessages {
  inputs: RawMessage[];
  /** How many of `inputs`, from the first, the agent's previous call was sent or answered. */
  sentAgain: number;
  outputs: RawMessage[];
}

/**
 * Expands `model.call` events, fed in log order, into the whole list of messages each call was
 * sent. Only the latest call of each agent is kept to expand the next one by, so memory holds one
 * history per agent, not one per call.
 */
export class ModelCallExpander {
  private readonly latest = new Map<string, { callId: string; sequence: RawMessage[] }>();

  expand(
    agent: string,
    call: { callId: string; sentAgain: SentAgain | null; inputs: RawMessage[]; outputs: RawMessage[] },
  ): ModelCallMessages {
    const previous = this.latest.get(agent);
    const base =
      call.sentAgain && previous?.callId === call.sentAgain.callId
        ? previous.sequence.slice(0, call.sentAgain.count)
        : [];
    const inputs = base.length > 0 ? base.concat(call.inputs) : call.inputs;
    this.latest.set(agent, { callId: call.callId, sequence: inputs.concat(call.outputs) });
    return { inputs, sentAgain: base.length, outputs: call.outputs };
  }
}

/**
 * What `next` (a call's whole input) repeats of `previous` (the agent's previous call's input and
 * answer): the length of their common start. Messages are compared whole.
 */
export function sentAgainCount(previous: readonly MessageLike[], next: readonly MessageLike[]): number {
  const most = Math.min(previous.length, next.length);
  let count = 0;
  while (count < most && sameMessage(previous[count]!, next[count]!)) count++;
  return count;
}

/** What `sentAgainCount` compares: a RawMessage, or a message as a trace reader holds it. */
export interface MessageLike {
  role: string;
  name?: string;
  text: string;
  toolCallId?: string;
  toolCalls?: ReadonlyArray<{ id: string | null; name: string; arguments: string }>;
}

function sameMessage(a: MessageLike, b: MessageLike): boolean {
  return (
    a.role === b.role &&
    a.text === b.text &&
    a.name === b.name &&
    a.toolCallId === b.toolCallId &&
    (a.toolCalls?.length ?? 0) === (b.toolCalls?.length ?? 0) &&
    (a.toolCalls ?? []).every((call, i) => {
      const other = b.toolCalls![i]!;
      return call.id === other.id && call.name === other.name && call.arguments === other.arguments;
    })
  );
}

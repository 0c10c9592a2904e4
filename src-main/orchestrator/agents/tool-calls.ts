import type { Message, ToolApproval, ToolCall, ToolResult, ToolServerErrorPolicy } from '@shared/domain';
import type { Tool, ToolRegistry } from '../tools';
import { AgentFailure, type TurnContext } from './agent';
import { handoffTarget } from './handoff-tools';

/** What an agent needs to run tool calls. */
export interface ToolCallServices {
  tools: ToolRegistry;
  fileRoot: string | null;
  /** Calls that need a person's approval run without asking (`--approve-all`). */
  approveAll: boolean;
  /** After a tool server failed on a call: go on (the agent reads the error) or stop the run. */
  onServerError: ToolServerErrorPolicy;
}

/** A person's decision on one call. */
export type Approval =
  | { decision: 'approved' }
  | { decision: 'edited'; arguments: string }
  | { decision: 'denied'; reason: string };

/**
 * Reads a person's answer to an approval question: empty, `y`, `yes`, `approve` or `ok` approves;
 * a JSON object replaces the arguments; anything else denies, with `deny`/`no` and the rest (or
 * the whole answer) as the reason the agent reads.
 */
export function parseApproval(answer: string): Approval {
  const text = answer.trim();
  if (/^(|y|yes|approve|approved|ok|allow)$/i.test(text)) return { decision: 'approved' };
  if (text.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return { decision: 'edited', arguments: JSON.stringify(value) };
    } catch {
      return {
        decision: 'denied',
        reason: `the edited arguments were not valid JSON: ${text.slice(0, 200)}`,
      };
    }
  }
  const reason = text.replace(/^(deny|denied|no|n)\b[\s:,-]*/i, '').trim();
  return { decision: 'denied', reason: reason || 'no reason given' };
}

/** The question a person answers before a call runs (one line of instructions, then the call). */
export function approvalPrompt(agent: string, tool: Tool, call: ToolCall): string {
  return (
    `Approve ${agent}'s call of ${tool.name}? Answer "approve", "deny <reason>", or the arguments ` +
    `as a JSON object to run it with those.\nArguments: ${call.arguments.trim() || '{}'}`
  );
}

interface CallOutcome {
  result: ToolResult;
  tool: Tool | undefined;
  fault: string | null;
  approval?: Approval['decision'];
}

/**
 * Runs an agent's tool calls in parallel: records `tool.requested` for each, asks a person first
 * where the tool needs approval, records `tool.executed`, sends the results as one tool message
 * and hands off when a call was a transfer. Returns the handoff target, or null. Throws
 * AgentFailure when a tool server failed and the fleet says to stop.
 */
export async function runToolCalls(
  context: TurnContext,
  services: ToolCallServices,
  request: Message,
  calls: readonly ToolCall[],
): Promise<string | null> {
  for (const call of calls) {
    const tool = services.tools.get(call.name);
    context.emit({
      kind: 'tool.requested',
      payload: {
        messageId: request.id,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
        ...mcpFields(tool),
      },
    });
  }
  // One question at a time, in call order (a view shows one open question): every answer is in
  // before any of the calls runs.
  const approvals: Array<Approval | null> = [];
  for (const call of calls) approvals.push(await askApproval(context, services, call));
  let handoff: string | null = null;
  const toolContext = { signal: context.signal, fileRoot: services.fileRoot };
  const outcomes = await Promise.all(
    calls.map(async (call, index): Promise<CallOutcome> => {
      const target = handoffTarget(call.name, context.handoffTargets);
      if (target === null) return invoke(services, call, toolContext, approvals[index] ?? null);
      const result = (content: string, isError: boolean): CallOutcome => ({
        result: { callId: call.id, name: call.name, content, isError },
        tool: undefined,
        fault: null,
      });
      if (handoff !== null) return result(`Error: already transferred to ${handoff}.`, true);
      handoff = target;
      return result(`Transferred to ${target}.`, false);
    }),
  );
  for (const { result, tool, approval } of outcomes) {
    context.emit({
      kind: 'tool.executed',
      payload: {
        callId: result.callId,
        name: result.name,
        result: result.content,
        isError: result.isError,
        ...mcpFields(tool),
        ...(approval !== undefined ? { approval } : {}),
      },
    });
  }
  const results = outcomes.map((outcome) => outcome.result);
  const summary = results.map((result) => `${result.name}: ${result.content}`).join('\n');
  const resultMessage = context.send({
    to: context.address,
    kind: 'tool',
    content: summary,
    toolResults: results,
    parentId: request.id,
  });
  const fault = outcomes.find((outcome) => outcome.fault !== null)?.fault ?? null;
  if (fault !== null && services.onServerError === 'stop') {
    const message = `The run stops because ${fault} (the fleet's onToolServerError is "stop").`;
    context.emit({ kind: 'error', payload: { code: 'tool-server', message, messageId: resultMessage.id } });
    context.setStatus('error');
    throw new AgentFailure('tool-server', message);
  }
  if (handoff === null) return null;
  context.handoff(
    handoff,
    request.content || `${context.name} transfers the conversation to ${handoff}.`,
    resultMessage.id,
  );
  return handoff;
}

/** A tool's schema as plain JSON (an MCP server's schema came as JSON, a built-in's is written so). */
function jsonSchema(parameters: Record<string, unknown>): ToolApproval['inputSchema'] {
  return JSON.parse(JSON.stringify(parameters)) as ToolApproval['inputSchema'];
}

function mcpFields(tool: Tool | undefined): { server?: string; tool?: string } {
  if (tool?.server === undefined) return {};
  return { server: tool.server, tool: tool.name.slice(tool.server.length + 1) };
}

/** Asks a person about a call whose tool needs approval; null when it needs none. */
async function askApproval(
  context: TurnContext,
  services: ToolCallServices,
  call: ToolCall,
): Promise<Approval | null> {
  const tool = services.tools.get(call.name);
  if (tool?.requiresApproval !== true || services.approveAll) return null;
  const approval = parseApproval(
    await context.askHuman(approvalPrompt(context.address, tool, call), {
      callId: call.id,
      name: tool.name,
      ...mcpFields(tool),
      arguments: call.arguments.trim() || '{}',
      inputSchema: jsonSchema(tool.parameters),
    }),
  );
  context.setStatus('thinking');
  return approval;
}

/** Runs a call as the person decided (`approval` null: it needed no approval). */
async function invoke(
  services: ToolCallServices,
  call: ToolCall,
  toolContext: { signal: AbortSignal; fileRoot: string | null },
  approval: Approval | null,
): Promise<CallOutcome> {
  if (approval === null) return services.tools.run(call, toolContext);
  const tool = services.tools.get(call.name);
  if (approval.decision === 'denied') {
    return {
      result: {
        callId: call.id,
        name: call.name,
        content: `Error: a person denied this call: ${approval.reason}`,
        isError: true,
      },
      tool,
      fault: null,
      approval: 'denied',
    };
  }
  const edited = approval.decision === 'edited' ? { ...call, arguments: approval.arguments } : call;
  return { ...(await services.tools.run(edited, toolContext)), approval: approval.decision };
}

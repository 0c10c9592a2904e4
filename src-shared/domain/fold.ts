import { assertNever, type AgentStatus, type RunEvent, type ToolApproval } from './event';
import type { Message } from './message';
import type { SessionStatus } from './session';

/** Running totals of a session, as the header and the graph show them. */
export interface ViewCounters {
  events: number;
  /** Messages that reached `complete`. */
  messages: number;
  promptTokens: number;
  completionTokens: number;
  toolCalls: number;
  toolResults: number;
  handoffs: number;
  errors: number;
  dropped: number;
  /** Parts of an ingested trace kept but not mapped (`span.unmapped`); absent until the first. */
  unmapped?: { spans: number; attributes: number };
}

/**
 * What the UI shows of a session at one point of its event log. Plain JSON (no Maps), so it can be
 * stored in a checkpoint and sent over the contract as is.
 */
export interface ViewState {
  /** Seq of the last event folded in; 0 before any. */
  seq: number;
  /** Milliseconds since session start of the last event folded in. */
  t: number;
  status: SessionStatus | null;
  stopReason: string | null;
  agents: Record<string, AgentStatus>;
  /** Messages by id, with their state. A compacted view keeps only messages still in flight. */
  messages: Record<string, Message>;
  /** Ids of `messages` in the order they started. */
  order: string[];
  /** An open human-input request, if the run waits for one. */
  pendingHuman: {
    requestId: string;
    prompt: string;
    agent: string | null;
    /** Present when the question is whether a tool call may run. */
    approval?: ToolApproval;
  } | null;
  counters: ViewCounters;
}

export function emptyView(): ViewState {
  return {
    seq: 0,
    t: 0,
    status: null,
    stopReason: null,
    agents: {},
    messages: {},
    order: [],
    pendingHuman: null,
    counters: {
      events: 0,
      messages: 0,
      promptTokens: 0,
      completionTokens: 0,
      toolCalls: 0,
      toolResults: 0,
      handoffs: 0,
      errors: 0,
      dropped: 0,
    },
  };
}

/**
 * Pure fold: the view after `events`, starting from `from` (which is not modified). Events must be
 * in seq order.
 */
export function foldEvents(events: Iterable<RunEvent>, from: ViewState = emptyView()): ViewState {
  const state = cloneView(from);
  for (const event of events) applyEvent(state, event);
  return state;
}

export function cloneView(view: ViewState): ViewState {
  return structuredClone(view);
}

/**
 * Applies one event to `state` in place (for live views that keep one mutable state). Use
 * `foldEvents` when the input must stay untouched.
 */
export function applyEvent(state: ViewState, event: RunEvent): void {
  const forkStart = event.kind === 'session.started' && state.seq > 0;
  state.seq = event.seq;
  state.t = event.t;
  state.counters.events += 1;
  switch (event.kind) {
    case 'session.started':
      if (forkStart) startFork(state);
      state.status = 'running';
      state.stopReason = null;
      break;
    case 'session.continued':
      state.status = 'running';
      state.stopReason = null;
      break;
    case 'session.status':
      state.status = event.payload.status;
      break;
    case 'session.stopped':
      state.status = event.payload.status;
      state.stopReason = event.payload.stopReason;
      state.pendingHuman = null;
      for (const id of state.order) {
        const message = state.messages[id];
        if (message?.state === 'streaming') message.state = 'partial';
      }
      break;
    case 'agent.status':
      if (event.agent !== null) state.agents[event.agent] = event.payload.status;
      break;
    case 'message.started': {
      const p = event.payload;
      if (!(p.messageId in state.messages)) state.order.push(p.messageId);
      state.messages[p.messageId] = {
        id: p.messageId,
        threadId: p.threadId,
        parentId: p.parentId,
        from: p.from,
        to: p.to,
        kind: p.kind,
        content: '',
        meta: {},
        state: 'streaming',
        t: event.t,
      };
      break;
    }
    case 'message.delta': {
      const message = state.messages[event.payload.messageId];
      if (message) message.content += event.payload.text;
      break;
    }
    case 'message.completed': {
      const message = event.payload.message;
      const previous = state.messages[message.id];
      if (!previous) state.order.push(message.id);
      if (previous?.state !== 'complete') state.counters.messages += 1;
      const usageBefore = previous?.usage;
      // A reply cut off by a stall, a disconnect or a stop stays partial.
      state.messages[message.id] = {
        ...message,
        state: message.state === 'partial' ? 'partial' : 'complete',
      };
      addUsage(state, message.usage, usageBefore);
      settleSender(state, message);
      break;
    }
    case 'usage': {
      const message = state.messages[event.payload.messageId];
      addUsage(state, event.payload.usage, message?.usage);
      if (message) message.usage = event.payload.usage;
      break;
    }
    case 'tool.requested':
      state.counters.toolCalls += 1;
      break;
    case 'tool.executed':
      state.counters.toolResults += 1;
      break;
    case 'handoff':
      state.counters.handoffs += 1;
      break;
    case 'human.requested':
      state.pendingHuman = {
        requestId: event.payload.requestId,
        prompt: event.payload.prompt,
        agent: event.agent,
        ...(event.payload.approval ? { approval: event.payload.approval } : {}),
      };
      break;
    case 'human.given':
      if (state.pendingHuman?.requestId === event.payload.requestId) state.pendingHuman = null;
      break;
    case 'error':
      state.counters.errors += 1;
      break;
    case 'message.dropped':
      state.counters.dropped += 1;
      break;
    case 'span.unmapped': {
      const unmapped = (state.counters.unmapped ??= { spans: 0, attributes: 0 });
      if (!event.payload.partly) unmapped.spans += 1;
      else unmapped.attributes += Object.keys(event.payload.attributes).length + event.payload.events.length;
      break;
    }
    case 'routing.decision':
    case 'termination.check':
    case 'model.call':
      break;
    default:
      assertNever(event);
  }
}

/**
 * A sender is drawn "streaming" only while its message streams. The runtime reports the end of a
 * turn a few events after the message completes (termination checks, a handoff, tool calls), so
 * without this the view right at a completed message (where stepping through a replay lands)
 * would show its sender still streaming beside the finished message. A message with tool calls
 * leaves its sender working on them (`thinking`); any other ends its streaming (`idle`) until the
 * runtime reports the next status.
 */
function settleSender(state: ViewState, message: Message): void {
  const status = state.agents[message.from];
  if (status !== undefined) state.agents[message.from] = statusAfterMessage(status, message);
}

/** The sender's status once `message` has completed (see `settleSender`). */
export function statusAfterMessage(status: AgentStatus, message: Message): AgentStatus {
  if (status !== 'streaming') return status;
  return (message.toolCalls?.length ?? 0) > 0 ? 'thinking' : 'idle';
}

/**
 * A `session.started` after other events is a fork's first own event: the fork holds the
 * messages completed before it. Replies still streaming there belong to the branch not taken and
 * are dropped (their usage with them); agents are idle and no question is open.
 */
function startFork(state: ViewState): void {
  const kept: string[] = [];
  for (const id of state.order) {
    const message = state.messages[id];
    if (message?.state === 'streaming') {
      addUsage(state, { prompt: 0, completion: 0 }, message.usage);
      delete state.messages[id];
    } else kept.push(id);
  }
  state.order = kept;
  state.pendingHuman = null;
  for (const agent of Object.keys(state.agents)) state.agents[agent] = 'idle';
}

/** Usage replaces what a message had before; totals move by the difference. */
function addUsage(
  state: ViewState,
  usage: { prompt: number; completion: number } | undefined,
  before: { prompt: number; completion: number } | undefined,
): void {
  if (!usage) return;
  state.counters.promptTokens += usage.prompt - (before?.prompt ?? 0);
  state.counters.completionTokens += usage.completion - (before?.completion ?? 0);
}

/**
 * Drops completed messages, keeping those still in flight (streaming or partial). Checkpoints
 * store compacted views so their size does not grow with the session; completed messages are
 * paged from the message list instead.
 */
export function compactView(state: ViewState): ViewState {
  const view = cloneView(state);
  compactInPlace(view);
  return view;
}

export function compactInPlace(view: ViewState): void {
  const open = view.order.filter((id) => view.messages[id]?.state === 'streaming');
  const messages: Record<string, Message> = {};
  for (const id of open) messages[id] = view.messages[id] as Message;
  view.messages = messages;
  view.order = open;
}

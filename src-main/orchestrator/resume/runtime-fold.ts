import {
  FORKED_STOP_REASON,
  LIVE_STATUSES,
  USER,
  type Fleet,
  type Message,
  type RunEvent,
  type SessionStatus,
  type TokenUsage,
} from '@shared/domain';
import { memberOf, routeMessage, type BusMember } from '../runtime/routing';
import type { PatternProgress } from '../teams/pattern';
import { lastHandoff } from '../teams/swarm';

/** What the top-level team knew and where it stood when the events end. */
export interface TeamSnapshot {
  /** Every message of the team, in order (the task included). */
  history: Message[];
  /** Messages since the last round was planned: what the pattern decides the next round from. */
  recent: Message[];
  /** Member whose turn ended last. */
  lastSpeaker: string | null;
  /** Per member: what it received (inbox) and what it said and received (view). */
  memory: { inboxes: Record<string, Message[]>; views: Record<string, Message[]> };
  /** Turns each member took (a scripted agent's place in its script). */
  turns: Record<string, number>;
  progress: PatternProgress;
  /** The last run ended because the pattern had run its course (a finished pipeline, a swarm handing back). */
  patternFinished: boolean;
}

/** The runtime state of a session rebuilt from its events (see `foldRuntime`). */
export interface RuntimeSnapshot {
  lastSeq: number;
  /** Milliseconds since the session started, of the last event. */
  lastT: number;
  /** Status the events end in (null before any). */
  status: SessionStatus | null;
  stopReason: string | null;
  messageCount: number;
  tokens: TokenUsage;
  /** Thread of every message, so replies join their parent's thread. */
  threads: Array<[string, string]>;
  /** The message a follow-up task replies to. */
  lastOutputId: string | null;
  team: TeamSnapshot;
  /**
   * Messages the termination condition had seen when the session was cut off while running
   * (crash, killed process), or in a fork's prefix: the condition takes them up again. Empty
   * when the session had stopped, completed or failed: like any continuation, it counts afresh.
   */
  conditionMessages: Message[];
  /** Members whose last turn did not finish (cut off, or failed): they take that turn again. */
  retakenTurns: string[];
  /** Questions to people still open when the events end. */
  openQuestions: Array<{ requestId: string; agent: string | null; prompt: string }>;
}

/** Statuses that end an agent's turn (the runtime sets them when `turn()` returns or throws). */
const TURN_ENDS = new Set(['idle', 'error']);

/**
 * Rebuilds the runtime state of a session from its events: each agent's history (delivered by
 * the same rules as the live bus), the turn order position, what the termination condition had
 * seen, open questions to people and where the swarm's floor is. Pure: the same events and fleet
 * give the same snapshot, and the inputs are not changed. Shared by resume (a stored session goes
 * on) and fork (a fork goes on from its fork point).
 *
 * Turns are read from the runtime's agent statuses: a turn starts with `thinking` and ends with
 * `idle` (done or cut short by a stop) or `error` (failed). Turns that overlap form one round.
 * A later `session.started` marks the start of a fork: the turns in flight there count as done
 * (the fork keeps the message it was cut at), and questions open there are dropped. A turn still
 * open (or failed) when the events end is taken again on resume.
 *
 * Only the top-level team is rebuilt: a nested team runs inside one turn of its team agent, and
 * its state lives only as long as that turn.
 */
export function foldRuntime(events: Iterable<RunEvent>, fleet: Fleet): RuntimeSnapshot {
  return new RuntimeFold(fleet).fold(events);
}

/** The top-level team's members as delivery sees them. */
function busMembers(fleet: Fleet): Map<string, BusMember> {
  return new Map(
    fleet.agents.map((agent) => [
      agent.name,
      {
        name: agent.name,
        acceptedKinds: agent.acceptedKinds,
        receiveOwnBroadcasts: agent.receiveOwnBroadcasts,
      },
    ]),
  );
}

const teamAgentsOf = (fleet: Fleet): ReadonlySet<string> =>
  new Set(fleet.agents.filter((agent) => agent.type === 'team').map((agent) => agent.name));

/**
 * Whether a message was said on the top-level team's bus. Nested teams' members have scoped
 * addresses (`team/agent`); a nested team's task comes from its team agent as a `task`.
 */
function isTopLevel(teamAgents: ReadonlySet<string>, message: Message): boolean {
  if (message.from === USER) return true;
  if (message.from.includes('/')) return false;
  return !(teamAgents.has(message.from) && message.kind === 'task');
}

/**
 * The messages among `messages` (completed, in order) that were in `agent`'s view: what the fold
 * gives as `team.memory.views[agent]` for them, without folding anything else.
 */
export function agentViewOf(fleet: Fleet, agent: string, messages: readonly Message[]): Message[] {
  const members = busMembers(fleet);
  const teamAgents = teamAgentsOf(fleet);
  return messages.filter((message) => {
    if (!isTopLevel(teamAgents, message)) return false;
    const delivery = routeMessage(members, '', USER, message);
    return (
      delivery.sender === agent ||
      delivery.receivers.some((receiver) => receiver.name === agent && !receiver.own)
    );
  });
}

class RuntimeFold {
  private readonly members: Map<string, BusMember>;
  private readonly teamAgents: ReadonlySet<string>;
  private readonly history: Message[] = [];
  private readonly inboxes: Record<string, Message[]> = {};
  private readonly views: Record<string, Message[]> = {};
  private readonly turns: Record<string, number> = {};
  private readonly threads = new Map<string, string>();
  private readonly inTurn = new Set<string>();
  private readonly failed = new Set<string>();
  private readonly roundSpeakers = new Set<string>();
  private readonly questions = new Map<string, { requestId: string; agent: string | null; prompt: string }>();
  private conditionMessages: Message[] = [];
  private lastSeq = 0;
  private lastT = 0;
  private status: SessionStatus | null = null;
  private stopReason: string | null = null;
  private messageCount = 0;
  private readonly tokens: TokenUsage = { prompt: 0, completion: 0 };
  private runOutput: Message | null = null;
  private roundStart = 0;
  private roundStartBefore = 0;
  private rounds = 0;
  private roundsSinceReset = 0;
  private lastSpeaker: string | null = null;
  private lastSpeakerBefore: string | null = null;
  private floor: string | null;
  private floorBefore: string | null;
  private patternFinished = false;

  constructor(private readonly fleet: Fleet) {
    this.members = busMembers(fleet);
    for (const agent of fleet.agents) {
      this.inboxes[agent.name] = [];
      this.views[agent.name] = [];
      this.turns[agent.name] = 0;
    }
    this.teamAgents = teamAgentsOf(fleet);
    this.floor = fleet.team.pattern === 'swarm' ? fleet.team.start : null;
    this.floorBefore = this.floor;
  }

  fold(events: Iterable<RunEvent>): RuntimeSnapshot {
    for (const event of events) this.apply(event);
    return this.snapshot();
  }

  private apply(event: RunEvent): void {
    const first = this.lastSeq === 0;
    this.lastSeq = event.seq;
    this.lastT = event.t;
    switch (event.kind) {
      case 'session.started':
        this.status = 'running';
        this.stopReason = null;
        // A fork goes on with its prefix's run: what the condition had seen there still counts.
        if (first) this.restart();
        else this.startFork();
        break;
      case 'session.continued': {
        const resuming = event.payload.task.trim() === '' && Object.keys(event.payload.context).length === 0;
        const forkRuns = resuming && this.stopReason === FORKED_STOP_REASON;
        if (!resuming) this.roundsSinceReset = 0;
        // A task starts a fresh round of talk; a resume keeps what the next plan reads, unless
        // the pattern had already read it to its end.
        if (!resuming || this.patternFinished) this.roundStart = this.history.length;
        this.status = 'running';
        this.stopReason = null;
        // A fork's first run is its prefix's run going on, not a new one.
        if (!forkRuns) this.restart();
        break;
      }
      case 'session.stopped':
        this.status = event.payload.status;
        this.stopReason = event.payload.stopReason;
        this.patternFinished =
          event.payload.stopReason === 'team-finished' ||
          (this.fleet.team.pattern === 'swarm' && event.payload.stopReason === 'handoff');
        this.questions.clear();
        break;
      case 'session.status':
        this.status = event.payload.status;
        break;
      case 'agent.status':
        if (event.agent !== null && this.members.has(event.agent))
          this.agentStatus(event.agent, event.payload.status);
        break;
      case 'message.completed':
        this.message(event.payload.message);
        break;
      case 'human.requested':
        this.questions.set(event.payload.requestId, {
          requestId: event.payload.requestId,
          agent: event.agent,
          prompt: event.payload.prompt,
        });
        break;
      case 'human.given':
        this.questions.delete(event.payload.requestId);
        break;
      default:
        break;
    }
  }

  /** A run or continuation begins: the condition and the run's output start afresh. */
  private restart(): void {
    this.conditionMessages = [];
    this.runOutput = null;
    this.patternFinished = false;
  }

  /** A fork begins here: turns in flight end with the message the fork was cut at. */
  private startFork(): void {
    for (const name of this.inTurn) this.lastSpeaker = name;
    this.inTurn.clear();
    this.failed.clear();
    this.questions.clear();
    this.patternFinished = false;
  }

  private agentStatus(name: string, status: string): void {
    if (status === 'thinking' && !this.inTurn.has(name)) {
      if (this.inTurn.size === 0) this.startRound();
      this.inTurn.add(name);
      this.roundSpeakers.add(name);
      this.turns[name] = (this.turns[name] ?? 0) + 1;
    } else if (TURN_ENDS.has(status) && this.inTurn.delete(name)) {
      if (status === 'error') this.failed.add(name);
      else this.failed.delete(name);
      this.lastSpeaker = name;
    }
  }

  /** What the pattern did when it planned a round: the swarm's floor follows the last handoff. */
  private startRound(): void {
    this.floorBefore = this.floor;
    this.lastSpeakerBefore = this.lastSpeaker;
    if (this.floor !== null) {
      const handoff = lastHandoff(this.history.slice(this.roundStart));
      const target = handoff ? memberOf(this.members, '', handoff.to) : null;
      if (target !== null) this.floor = target;
    }
    this.roundStartBefore = this.roundStart;
    this.roundStart = this.history.length;
    this.rounds += 1;
    this.roundsSinceReset += 1;
    this.roundSpeakers.clear();
    this.failed.clear();
  }

  private message(message: Message): void {
    this.messageCount += 1;
    if (message.usage) {
      this.tokens.prompt += message.usage.prompt;
      this.tokens.completion += message.usage.completion;
    }
    this.threads.set(message.id, message.threadId);
    if (!isTopLevel(this.teamAgents, message)) return;
    const delivery = routeMessage(this.members, '', USER, message);
    if (delivery.sender !== null) this.views[delivery.sender]?.push(message);
    for (const receiver of delivery.receivers) {
      this.inboxes[receiver.name]?.push(message);
      if (!receiver.own) this.views[receiver.name]?.push(message);
    }
    this.history.push(message);
    this.conditionMessages.push(message);
    if (message.to === USER) this.runOutput = message;
  }

  private snapshot(): RuntimeSnapshot {
    const retaken = new Set([...this.inTurn, ...this.failed]);
    let rounds = this.rounds;
    let roundsSinceReset = this.roundsSinceReset;
    let recentStart = this.roundStart;
    let lastSpeaker = this.lastSpeaker;
    let floor = this.floor;
    const turns = { ...this.turns };
    if (retaken.size > 0) {
      // The last round did not finish: plan it again from where it was planned.
      rounds = Math.max(0, rounds - 1);
      roundsSinceReset = Math.max(0, roundsSinceReset - 1);
      recentStart = this.roundStartBefore;
      lastSpeaker = this.lastSpeakerBefore;
      floor = this.floorBefore;
      for (const name of this.roundSpeakers) turns[name] = Math.max(0, (turns[name] ?? 0) - 1);
    }
    // Cut off mid-run (a crash, a killed process) or a fork not run yet: the condition goes on.
    const cutOff =
      this.status !== null &&
      (this.status === 'interrupted' || isLive(this.status) || this.stopReason === FORKED_STOP_REASON);
    const last = this.history.at(-1);
    return {
      lastSeq: this.lastSeq,
      lastT: this.lastT,
      status: this.status,
      stopReason: this.stopReason,
      messageCount: this.messageCount,
      tokens: { ...this.tokens },
      threads: [...this.threads],
      lastOutputId: this.runOutput?.id ?? last?.id ?? null,
      team: {
        history: [...this.history],
        recent: this.history.slice(recentStart),
        lastSpeaker,
        memory: { inboxes: copyLists(this.inboxes), views: copyLists(this.views) },
        turns,
        progress: { rounds, roundsSinceReset, floor },
        patternFinished: this.patternFinished,
      },
      conditionMessages: cutOff ? [...this.conditionMessages] : [],
      retakenTurns: [...retaken],
      openQuestions: [...this.questions.values()],
    };
  }
}

function isLive(status: SessionStatus): boolean {
  return (LIVE_STATUSES as readonly SessionStatus[]).includes(status);
}

function copyLists(lists: Record<string, Message[]>): Record<string, Message[]> {
  return Object.fromEntries(Object.entries(lists).map(([name, list]) => [name, [...list]]));
}

import {
  type Fleet,
  type Message,
  type MessageKind,
  type ToolServerErrorPolicy,
  type UsagePricer,
} from '@shared/domain';
import type { ModelClientFactory } from '../../llm';
import {
  AgentFailure,
  ScriptedAgent,
  TurnAborted,
  buildAgent,
  type Agent,
  type TurnContext,
} from '../agents';
import {
  buildCondition,
  effectiveTermination,
  type StopResult,
  type TerminationCondition,
} from '../conditions';
import type { TeamSnapshot } from '../resume/runtime-fold';
import { MessageBus } from '../runtime/bus';
import type { SessionState } from '../runtime/session-state';
import { buildPattern, type Speaker, type TeamPattern } from '../teams';
import type { ToolRegistry } from '../tools';
import type { HumanDesk } from './human-desk';
import { RunCancelled, type RunControl } from './run-control';
import { ConditionTimer } from './condition-timer';
import { RuntimeTurnContext } from './turn-context';

/** Services every team of a session shares. */
export interface RuntimeServices {
  control: RunControl;
  humans: HumanDesk;
  tools: ToolRegistry;
  fileRoot: string | null;
  /** Calls that need a person's approval run without asking. */
  approveAll: boolean;
  /** The top fleet's `onToolServerError` (nested teams follow it too). */
  onServerError: ToolServerErrorPolicy;
  models: ModelClientFactory;
  /** Prices model calls as they are recorded; null leaves it to the store. */
  pricer?: UsagePricer | null;
}

export interface TeamRunnerOptions {
  fleet: Fleet;
  /** Envelope prefix of this team's members: '' at the top, `team/` when nested. */
  scope: string;
  /** Who gives this team its task: `user` at the top, the team agent when nested. */
  owner: string;
  session: SessionState;
  services: RuntimeServices;
}

export interface TeamTask {
  content: string;
  parentId: string | null;
  kind?: MessageKind;
}

/** Continue the conversation where it stopped: no task message, the next speaker goes on. */
export const RESUME = 'resume';

export interface TeamOutcome {
  stop: StopResult;
  /** The last message addressed to the owner, if any. */
  output: Message | null;
  /** The last message of the team, whoever it was for. */
  last: Message | null;
}

const EXTERNAL_STOP: StopResult = { condition: 'external', detail: 'The run was asked to stop.' };

/**
 * Runs one team: sends the task, asks the pattern for rounds and runs each round's speakers
 * concurrently. The termination condition is checked after the task and at the end of every
 * turn, with the messages that turn produced: a turn (tool calls and their results included) is
 * never cut in half by a message-based condition. Time-based conditions and cancellation still
 * cut a turn short.
 */
export class TeamRunner {
  private readonly bus: MessageBus;
  private readonly agents = new Map<string, Agent>();
  private readonly pattern: TeamPattern;
  private readonly condition: TerminationCondition;
  private readonly history: Message[] = [];
  private recent: Message[] = [];
  /** Messages completed since the last termination check. */
  private unchecked: Message[] = [];
  private stop: StopResult | null = null;
  private output: Message | null = null;
  private lastSpeaker: string | null = null;
  private roundAbort: AbortController | null = null;
  /** Rounds in a row in which only agents with nothing left to say were asked (see outOfReplies). */
  private silentRounds = 0;
  /** The last run ended because the pattern said it was done (its last round was read). */
  private patternFinished = false;
  /** Messages the condition takes up again before the next run (a session cut off mid-run). */
  private primed: readonly Message[] | null = null;
  /** Fires time-based conditions (timeouts) while a turn is in flight. */
  private timer: ConditionTimer | null = null;
  /** The round controller kept for the next round, and how to untie it from its parent signal. */
  private idleRound: { parent: AbortSignal; abort: AbortController; release(): void } | null = null;

  constructor(private readonly options: TeamRunnerOptions) {
    const { fleet, session, services } = options;
    this.bus = new MessageBus(session, {
      scope: options.scope,
      owner: options.owner,
      members: fleet.agents.map((agent) => ({
        name: agent.name,
        acceptedKinds: agent.acceptedKinds,
        receiveOwnBroadcasts: agent.receiveOwnBroadcasts,
      })),
      onMessage: (message) => this.onMessage(message),
    });
    this.condition = buildCondition(effectiveTermination(fleet.termination));
    const describe = (name: string) => fleet.agents.find((agent) => agent.name === name)?.description ?? '';
    for (const spec of fleet.agents) {
      this.agents.set(
        spec.name,
        buildAgent(spec, {
          models: services.models,
          tools: services.tools,
          fileRoot: services.fileRoot,
          pricer: services.pricer ?? null,
          approveAll: services.approveAll,
          onServerError: services.onServerError,
          describe,
          runNested: (nested, context, task) => this.runNested(nested, context, task),
        }),
      );
    }
    this.pattern = buildPattern(fleet, {
      owner: options.owner,
      memberName: (address) => this.bus.memberName(address),
      models: services.models,
      onDecision: (decision) =>
        session.recorder.emit(null, {
          kind: 'routing.decision',
          payload: {
            ...decision,
            chosen: this.bus.qualify(decision.chosen),
            candidates: decision.candidates.map((name) => this.bus.qualify(name)),
          },
        }),
      onSelectorFailure: (failure) =>
        session.recorder.emit(null, { kind: 'error', payload: { ...failure, messageId: null } }),
    });
  }

  get conditionLabel(): string {
    return this.condition.label;
  }

  /**
   * Takes up the state a session's events describe (see foldRuntime), so the next `run(RESUME)`
   * goes on as an uninterrupted run would have. `conditionMessages` are what the condition had
   * seen when the session was cut off mid-run.
   */
  restore(snapshot: TeamSnapshot, conditionMessages: readonly Message[]): void {
    this.history.push(...snapshot.history);
    this.recent = [...snapshot.recent];
    this.lastSpeaker = snapshot.lastSpeaker;
    this.patternFinished = snapshot.patternFinished;
    this.bus.restore(snapshot.memory);
    this.pattern.restore(snapshot.progress);
    for (const [name, agent] of this.agents) agent.restoreTurns?.(snapshot.turns[name] ?? 0);
    this.primed = conditionMessages.length > 0 ? conditionMessages : null;
  }

  /**
   * Runs until a condition fires or the pattern is done. `task` is RESUME to go on with the
   * conversation as it stands (the pattern keeps its place; one that had finished starts over).
   * `signal` is the enclosing turn's signal for nested teams. Throws RunCancelled, TurnAborted
   * (enclosing turn cut short) or AgentFailure.
   */
  async run(task: TeamTask | typeof RESUME, signal: AbortSignal): Promise<TeamOutcome> {
    const control = this.options.services.control;
    const resuming = task === RESUME;
    this.stop = null;
    this.output = null;
    // Resuming keeps what the last round said, which the next plan reads (a swarm's handoff, the
    // selector's last message), unless the pattern had already read it to its end.
    if (!resuming || this.patternFinished) this.recent = [];
    this.patternFinished = false;
    this.unchecked = [];
    this.silentRounds = 0;
    this.condition.reset(Date.now());
    this.takeUpCondition(resuming);
    if (!resuming) this.pattern.reset();
    const timer = new ConditionTimer(() => this.checkTimers());
    this.timer = timer;
    try {
      if (!resuming) {
        this.bus.send(this.options.owner, {
          to: this.pattern.taskReceiver(),
          kind: task.kind ?? 'task',
          content: task.content,
          parentId: task.parentId,
        });
        this.checkTurn();
      }
      timer.schedule(this.condition.wakeAt());
      let firstRound = true;
      while (this.stop === null) {
        await control.beforeRound(() => this.stop !== null || signal.aborted);
        if (signal.aborted && !control.isCancelled) throw new TurnAborted();
        if (this.stop === null && control.externalStop) this.stop = this.check([], true) ?? EXTERNAL_STOP;
        if (this.stop !== null) break;
        const state = { recent: this.recent, history: this.history, lastSpeaker: this.lastSpeaker, signal };
        let plan = await this.pattern.next(state);
        if (plan.type === 'done' && resuming && firstRound) {
          // Resuming a team whose pattern had run its course (a finished pipeline): go round again.
          this.pattern.reset();
          plan = await this.pattern.next(state);
        }
        firstRound = false;
        if (plan.type === 'done') {
          this.stop = plan.stop;
          this.patternFinished = true;
          break;
        }
        this.recent = [];
        const said = this.history.length;
        await this.runRound(plan.speakers, signal);
        this.stop ??= this.outOfReplies(plan.speakers, this.history.length > said);
        control.afterRound();
      }
      return { stop: this.stop, output: this.output, last: this.history.at(-1) ?? null };
    } finally {
      timer.clear();
      this.idleRound?.release();
      this.idleRound = null;
    }
  }

  /**
   * A session cut off mid-run and resumed: the condition sees again what it had seen (and may
   * fire at once). A new task starts a new run, which counts afresh.
   */
  private takeUpCondition(resuming: boolean): void {
    const messages = this.primed;
    this.primed = null;
    if (messages === null || !resuming) return;
    const result = this.condition.check({ messages, now: Date.now(), externalStop: false });
    if (result === null) return;
    this.stop = result;
    this.options.session.recorder.emit(null, {
      kind: 'termination.check',
      payload: { condition: this.condition.label, fired: true, reason: result.detail },
    });
  }

  private async runRound(speakers: readonly Speaker[], parent: AbortSignal): Promise<void> {
    const abort = this.roundController(parent);
    this.roundAbort = abort;
    try {
      const results = await Promise.allSettled(
        speakers.map(async (speaker) => {
          try {
            await this.runTurn(speaker, abort.signal);
            this.checkTurn();
          } catch (error) {
            abort.abort();
            throw error;
          }
        }),
      );
      const errors = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as unknown] : [],
      );
      if (errors.length === 0) return;
      if (this.options.services.control.isCancelled) throw new RunCancelled();
      const failure = errors.find((error) => !(error instanceof TurnAborted));
      if (failure !== undefined) throw failure;
      // Every error is an aborted turn: fine when a condition cut it short, else the parent was.
      if (this.stop === null) throw new TurnAborted();
    } finally {
      this.roundAbort = null;
    }
  }

  /** What cuts a round short: the last round's controller while unaborted, else a new one tied to `parent`. */
  private roundController(parent: AbortSignal): AbortController {
    const reused = this.idleRound;
    if (reused !== null && reused.parent === parent && !reused.abort.signal.aborted) return reused.abort;
    reused?.release();
    const abort = new AbortController();
    const onParentAbort = () => abort.abort();
    parent.addEventListener('abort', onParentAbort, { once: true });
    this.idleRound = {
      parent,
      abort,
      release: () => parent.removeEventListener('abort', onParentAbort),
    };
    return abort;
  }

  /** A scripted agent whose script is used up: its turns pass without a word. */
  private hasNothingLeft(name: string): boolean {
    const agent = this.agents.get(name);
    return agent instanceof ScriptedAgent && agent.finished;
  }

  /**
   * Ends the run cleanly when it can only go round in silence: after a round in which nobody said
   * anything, because every agent has nothing left to say, or because the rounds keep going to
   * agents that have nothing left (a selector that keeps picking one) as many times in a row as
   * the team has members.
   */
  private outOfReplies(speakers: readonly Speaker[], spoke: boolean): StopResult | null {
    if (spoke || !speakers.every((speaker) => this.hasNothingLeft(speaker.name))) {
      this.silentRounds = 0;
      return null;
    }
    this.silentRounds += 1;
    const members = [...this.agents.keys()];
    if (members.every((name) => this.hasNothingLeft(name)))
      return { condition: 'out-of-replies', detail: 'Every agent had said all its scripted replies.' };
    if (this.silentRounds < members.length) return null;
    const quiet = [...new Set(speakers.map((speaker) => speaker.name))].join(', ');
    return {
      condition: 'out-of-replies',
      detail: `${quiet} had nothing more to say, and the others were not asked.`,
    };
  }

  private async runTurn(speaker: Speaker, signal: AbortSignal): Promise<void> {
    const agent = this.agents.get(speaker.name);
    if (!agent) throw new AgentFailure('unknown-agent', `The team has no agent named "${speaker.name}".`);
    if (this.hasNothingLeft(speaker.name)) {
      this.lastSpeaker = speaker.name;
      return;
    }
    const context = new RuntimeTurnContext({
      name: speaker.name,
      receiver: speaker.receiver,
      handoffTargets: speaker.handoffTargets ?? [],
      signal,
      bus: this.bus,
      recorder: this.options.session.recorder,
      humans: this.options.services.humans,
      shouldStop: () => this.stop !== null || this.options.services.control.externalStop,
    });
    context.setStatus('thinking');
    try {
      await agent.turn(context);
      context.setStatus('idle');
    } catch (error) {
      if (error instanceof TurnAborted) context.setStatus('idle');
      else if (!(error instanceof AgentFailure)) context.setStatus('error');
      throw error;
    } finally {
      this.lastSpeaker = speaker.name;
    }
  }

  private async runNested(
    fleet: Fleet,
    context: TurnContext,
    task: { content: string; parentId: string | null },
  ) {
    const nested = new TeamRunner({
      fleet,
      scope: `${context.address}/`,
      owner: context.address,
      session: this.options.session,
      services: this.options.services,
    });
    return nested.run(task, context.signal);
  }

  private onMessage(message: Message): void {
    this.history.push(message);
    this.recent.push(message);
    this.unchecked.push(message);
    if (message.to === this.options.owner) this.output = message;
  }

  /** A boundary no turn is halfway through: check the condition with what was said since the last check. */
  private checkTurn(): void {
    const messages = this.unchecked;
    this.unchecked = [];
    if (this.stop !== null || messages.length === 0) return;
    const result = this.check(messages, this.options.services.control.externalStop);
    if (result !== null) this.stop = result;
  }

  private check(messages: readonly Message[], externalStop: boolean): StopResult | null {
    const result = this.condition.check({ messages, now: Date.now(), externalStop });
    this.options.session.recorder.emit(null, {
      kind: 'termination.check',
      payload: { condition: this.condition.label, fired: result !== null, reason: result?.detail ?? null },
    });
    return result;
  }

  /** A time-based condition came due: stop now and cut the current turn short. */
  private checkTimers(): void {
    if (this.stop !== null) return;
    const result = this.check([], this.options.services.control.externalStop);
    if (result === null) {
      this.timer?.schedule(this.condition.wakeAt());
      return;
    }
    this.stop = result;
    this.roundAbort?.abort();
    this.options.services.control.nudge();
  }
}

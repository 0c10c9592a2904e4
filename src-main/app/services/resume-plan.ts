import type { AgentChange, ProviderId, ResumeCheck } from '@shared/contract';
import { fleetSchema, isLiveStatus, type Fleet, type FleetInput, type SessionSummary } from '@shared/domain';
import type { HistoryStore } from '../../history';
import { foldRuntime, type RuntimeSnapshot } from '../../orchestrator';
import { AppError } from '../handlers/errors';
import { applyAgentChanges, unmappedAgents, type ProviderPreset } from './fleet-changes';

/** What a stored session goes on with: the fleet, its state folded from its events, the clock. */
export interface ResumePlan {
  fleet: Fleet;
  snapshot: RuntimeSnapshot;
  /** Milliseconds since the session started at which the continuation begins. */
  startT: number;
  /** The fleet differs from the stored one (changes or another fleet, an import given providers). */
  fleetChanged: boolean;
}

export interface ResumeInputs {
  agents: readonly AgentChange[];
  /** Another fleet to run on with (already resolved), instead of the stored one. */
  fleet?: Fleet;
}

/**
 * An imported session's fleet with only the tools this app has: a transcript's tools belonged to
 * the framework it came from, and its agents cannot call them here. Other fleets are kept as they
 * are (their tools were checked when they ran).
 */
export function runnableFleet(fleet: Fleet, imported: boolean, toolNames: readonly string[]): Fleet {
  if (!imported) return fleet;
  const known = new Set(toolNames);
  const strip = (current: Fleet): Fleet => ({
    ...current,
    agents: current.agents.map((agent) => ({
      ...agent,
      tools: agent.tools.filter((tool) => known.has(tool)),
      ...(agent.fleet ? { fleet: strip(agent.fleet) } : {}),
    })),
  });
  return strip(fleet);
}

/** The fleet a stored session ran with, or null when it has none the runtime can read. */
export function storedFleet(fleet: FleetInput | null): Fleet | null {
  if (fleet === null) return null;
  const parsed = fleetSchema.safeParse(fleet);
  return parsed.success ? parsed.data : null;
}

/** Names every agent a session's messages came from that a fleet lacks (the user, strangers aside). */
function missingSpeakers(store: HistoryStore, sessionId: string, fleet: Fleet): string[] {
  const names = new Set(fleet.agents.map((agent) => agent.name));
  const speakers = store.edgeStats(sessionId).agents.map((agent) => agent.name);
  return speakers.filter(
    (name) => name !== 'user' && name !== 'system' && !name.includes('/') && name !== '*' && !names.has(name),
  );
}

/**
 * Checks that a stored session can go on and folds its events into the state it goes on from.
 * Throws AppError: not-found, conflict (a process drives it), read-only (an import whose agents
 * have no providers yet), invalid-input (unknown agents, a fleet that lacks the speakers).
 */
export function planResume(
  store: HistoryStore,
  summary: SessionSummary,
  storedFleetInput: FleetInput | null,
  inputs: ResumeInputs,
  preset: (id: ProviderId) => ProviderPreset,
  toolNames: readonly string[],
  now: number = Date.now(),
): ResumePlan {
  const stored = storedFleet(storedFleetInput);
  const base = inputs.fleet ?? (stored ? runnableFleet(stored, summary.source !== 'live', toolNames) : null);
  if (base === null) {
    throw new AppError(
      'invalid-input',
      'This session has no fleet the runtime can read; choose a fleet to go on with.',
    );
  }
  if (inputs.fleet) {
    const missing = missingSpeakers(store, summary.id, inputs.fleet);
    if (missing.length > 0) {
      throw new AppError(
        'invalid-input',
        `The fleet ${inputs.fleet.name} has no agent for ${missing.join(', ')}, who spoke in this session.`,
      );
    }
  }
  const { fleet } = applyAgentChanges(base, inputs.agents, preset);
  const unmapped = unmappedAgents(fleet);
  if (unmapped.length > 0) {
    const what = summary.readOnly ? 'This imported session' : 'This session';
    throw new AppError(
      summary.readOnly ? 'read-only' : 'invalid-input',
      `${what} cannot go on until its agents have providers: give ${unmapped.join(', ')} a provider (or choose a fleet).`,
    );
  }
  store.flush();
  const snapshot = foldRuntime(store.iterateEvents(summary.id), fleet);
  return {
    fleet,
    snapshot,
    startT: Math.max(snapshot.lastT, now - summary.createdAt),
    fleetChanged: inputs.fleet !== undefined || inputs.agents.length > 0 || summary.readOnly,
  };
}

/** Whether a stored session can go on now (see ResumeCheck). */
export function checkResume(
  summary: SessionSummary,
  storedFleetInput: FleetInput | null,
  runningHere: boolean,
): ResumeCheck {
  const fleet = storedFleet(storedFleetInput);
  const unmapped = fleet ? unmappedAgents(fleet) : [];
  const live = runningHere || isLiveStatus(summary.status);
  const reason = live
    ? 'The session is running; stop it or wait for it to end first.'
    : fleet === null
      ? 'The session has no fleet the runtime can read; choose a fleet to go on with.'
      : unmapped.length > 0
        ? `Its agents need providers first: ${unmapped.join(', ')}.`
        : null;
  return {
    sessionId: summary.id,
    resumable: reason === null,
    reason,
    live,
    unmappedAgents: unmapped,
    imported: summary.readOnly,
  };
}

/**
 * Why a continuation would add nothing, or null when some agent may still speak: every agent
 * is scripted (no looping script) and has said all its lines, and no question waits for an answer.
 * A follow-up task would then be sent to no one who answers, so it is refused too.
 */
export function nothingToSay(fleet: Fleet, snapshot: RuntimeSnapshot): string | null {
  if (snapshot.openQuestions.length > 0 || snapshot.retakenTurns.length > 0) return null;
  const turns = snapshot.team.turns;
  const silent = fleet.agents.every(
    (agent) =>
      agent.type === 'scripted' &&
      agent.fleet === undefined &&
      agent.loop !== true &&
      (turns[agent.name] ?? 0) >= (agent.script?.length ?? 0),
  );
  return silent
    ? 'Every agent of this session is scripted and has said all its lines: there is nothing to continue.'
    : null;
}

/**
 * Whether every agent of a stored fleet is scripted without a looping script, so the session may
 * have run dry (nothingToSay then needs the folded state).
 */
export function scriptedOnly(fleet: FleetInput | null): boolean {
  const parsed = storedFleet(fleet);
  return parsed !== null && parsed.agents.every((agent) => agent.type === 'scripted' && agent.loop !== true);
}

import { statusAfterMessage, type AgentStatus, type RunEvent } from '@shared/domain';

/** What an agent is busy with: its bar's colour in the lanes. */
export type BusyKind = 'thinking' | 'streaming' | 'tool' | 'human';

/** One stretch of an agent's busy time, from the event that began it to the one that ended it. */
export interface BusySpan {
  kind: BusyKind;
  startSeq: number;
  startT: number;
  /** Seq of the event that ended it; Infinity while it has not ended. */
  endSeq: number;
  endT: number;
}

/** "`agent` waited `ms` for `forAgents`": an idle stretch between two busy ones. */
export interface Wait {
  agent: string;
  ms: number;
  /** Seq at which the wait ended (the agent became busy again): clicking it seeks there. */
  endSeq: number;
  startT: number;
  endT: number;
  /** The agents busy during the wait, longest first (those busy at least a quarter as long). */
  forAgents: string[];
}

/** Where the first thing went wrong in a session. */
export interface FirstError {
  seq: number;
  t: number;
  agent: string | null;
  text: string;
}

interface Gap {
  agent: string;
  startT: number;
  endT: number;
  endSeq: number;
}

interface AgentTrack {
  /** Seq of the first event about this agent. */
  firstSeq: number;
  status: AgentStatus;
  openTools: number;
  spans: BusySpan[];
}

/** Agents listed in a wait's "for" part at most. */
const MAX_WAITED_FOR = 3;

/**
 * Busy time per agent folded from events in seq order (incrementally: live runs append). An
 * agent is busy while its status is thinking, streaming or waiting for a human, and "in a tool"
 * from a tool call's request to its result. A message's completion settles its sender's status
 * with the same rule as the view fold (`statusAfterMessage`), so bars and the drawn status agree.
 * A stopped session ends every open span.
 */
export class ActivityTracker {
  private readonly tracks = new Map<string, AgentTrack>();
  private readonly toolOwners = new Map<string, string>();
  private error: FirstError | null = null;
  private lastT = 0;
  private lastSeq = 0;
  private changeCount = 0;

  /** Names of agents seen with a status or a tool call, in the order first seen. */
  get agents(): string[] {
    return [...this.tracks.keys()];
  }

  /** Seq of the first event about `agent` (Infinity for one never seen). */
  firstSeqOf(agent: string): number {
    return this.tracks.get(agent)?.firstSeq ?? Infinity;
  }

  spansOf(agent: string): readonly BusySpan[] {
    return this.tracks.get(agent)?.spans ?? [];
  }

  get firstError(): FirstError | null {
    return this.error;
  }

  /** Seq of the last event applied. */
  get seq(): number {
    return this.lastSeq;
  }

  /**
   * Counts changes to what is drawn from the tracker (a span opened or closed, an agent first
   * seen, the first error): unchanged across events that only stream text.
   */
  get changes(): number {
    return this.changeCount;
  }

  /**
   * Starts from the agents' statuses at `seq` (the start of a window of a long log, known from
   * the store's folded view rather than from events): those busy then have a span from there.
   * Call before any `apply`.
   */
  seed(statuses: Readonly<Record<string, AgentStatus>>, seq: number, t: number): void {
    this.lastSeq = seq;
    this.lastT = Math.max(this.lastT, t);
    for (const [agent, status] of Object.entries(statuses)) {
      const track: AgentTrack = { firstSeq: seq, status, openTools: 0, spans: [] };
      const kind = busyKind(track);
      if (kind !== null)
        track.spans.push({ kind, startSeq: seq, startT: t, endSeq: Infinity, endT: Infinity });
      this.tracks.set(agent, track);
    }
  }

  apply(event: RunEvent): void {
    this.lastSeq = event.seq;
    this.lastT = Math.max(this.lastT, event.t);
    switch (event.kind) {
      case 'agent.status':
        if (event.agent === null) break;
        this.update(event.agent, event, (track) => (track.status = event.payload.status));
        if (event.payload.status === 'error') this.noteError(event, `${event.agent} stopped with an error`);
        break;
      case 'message.completed': {
        const message = event.payload.message;
        const track = this.tracks.get(message.from);
        if (track)
          this.update(message.from, event, (t) => (t.status = statusAfterMessage(t.status, message)));
        if (message.kind === 'error') this.noteError(event, `${message.from}: ${firstLine(message.content)}`);
        break;
      }
      case 'tool.requested': {
        const owner = event.agent;
        if (owner === null) break;
        this.toolOwners.set(event.payload.callId, owner);
        this.update(owner, event, (track) => (track.openTools += 1));
        break;
      }
      case 'tool.executed': {
        const owner = this.toolOwners.get(event.payload.callId) ?? event.agent;
        this.toolOwners.delete(event.payload.callId);
        if (owner !== null && this.tracks.has(owner))
          this.update(owner, event, (track) => (track.openTools = Math.max(0, track.openTools - 1)));
        if (event.payload.isError)
          this.noteError(event, `${event.payload.name} failed: ${firstLine(event.payload.result)}`);
        break;
      }
      case 'error':
        this.noteError(event, `${event.agent ? `${event.agent}: ` : ''}${firstLine(event.payload.message)}`);
        break;
      case 'session.stopped':
        for (const name of this.tracks.keys())
          this.update(name, event, (t) => {
            t.openTools = 0;
            if (t.status !== 'error' && t.status !== 'done') t.status = 'idle';
          });
        this.toolOwners.clear();
        if (event.payload.status === 'failed')
          this.noteError(
            event,
            `the run failed: ${firstLine(event.payload.detail ?? event.payload.stopReason)}`,
          );
        break;
      case 'session.started':
      case 'session.continued':
      case 'session.status':
      case 'message.started':
      case 'message.delta':
      case 'handoff':
      case 'routing.decision':
      case 'human.requested':
      case 'human.given':
      case 'message.dropped':
      case 'termination.check':
      case 'usage':
      case 'span.unmapped':
      case 'model.call':
        break;
      default: {
        const unknown: never = event;
        void unknown;
      }
    }
  }

  /**
   * The longest idle stretches that ended with the agent busy again, and who was busy meanwhile.
   * A stretch during which nobody else was busy is not a wait for anyone and is left out.
   */
  longestWaits(limit: number): Wait[] {
    // Most long gaps have someone busy meanwhile: keep a few times `limit` candidates (not every
    // gap of a 100k-message log), and look further only when too few of them were waits.
    for (let keep = limit * 4; ; keep *= 4) {
      const { candidates, complete } = this.longestGaps(keep);
      const waits: Wait[] = [];
      for (const gap of candidates) {
        if (waits.length >= limit) break;
        const forAgents = this.busyDuring(gap.agent, gap.startT, gap.endT);
        if (forAgents.length > 0) waits.push({ ...gap, ms: gap.endT - gap.startT, forAgents });
      }
      if (waits.length >= limit || complete) return waits;
    }
  }

  /** The `keep` longest idle gaps, longest first; `complete` when there are no more. */
  private longestGaps(keep: number): { candidates: Gap[]; complete: boolean } {
    const best: Gap[] = [];
    let total = 0;
    const longer = (a: Gap, b: Gap) => a.endT - a.startT - (b.endT - b.startT) || b.endSeq - a.endSeq;
    for (const [agent, track] of this.tracks) {
      const spans = track.spans;
      for (let index = 1; index < spans.length; index++) {
        const before = spans[index - 1] as BusySpan;
        const span = spans[index] as BusySpan;
        if (span.startT <= before.endT) continue;
        total += 1;
        const gap: Gap = { agent, startT: before.endT, endT: span.startT, endSeq: span.startSeq };
        if (best.length === keep && longer(gap, best[best.length - 1] as Gap) <= 0) continue;
        let at = best.length;
        while (at > 0 && longer(gap, best[at - 1] as Gap) > 0) at -= 1;
        best.splice(at, 0, gap);
        if (best.length > keep) best.pop();
      }
    }
    return { candidates: best, complete: total <= keep };
  }

  /** Agents other than `except` busy between `from` and `to` (ms), longest overlap first. */
  private busyDuring(except: string, from: number, to: number): string[] {
    const overlaps: { agent: string; ms: number }[] = [];
    for (const [agent, track] of this.tracks) {
      if (agent === except) continue;
      let total = 0;
      const spans = track.spans;
      for (let index = firstEndingAfter(spans, from); index < spans.length; index++) {
        const span = spans[index] as BusySpan;
        if (span.startT >= to) break;
        const end = Number.isFinite(span.endSeq) ? span.endT : this.lastT;
        total += Math.max(0, Math.min(end, to) - Math.max(span.startT, from));
      }
      if (total > 0) overlaps.push({ agent, ms: total });
    }
    overlaps.sort((a, b) => b.ms - a.ms || (a.agent < b.agent ? -1 : 1));
    const longest = overlaps[0]?.ms ?? 0;
    return overlaps
      .filter((overlap) => overlap.ms >= longest / 4)
      .slice(0, MAX_WAITED_FOR)
      .map((overlap) => overlap.agent);
  }

  /** Applies `change` to `agent`'s track and closes or opens spans where its busy kind changed. */
  private update(agent: string, event: RunEvent, change: (track: AgentTrack) => void): void {
    let track = this.tracks.get(agent);
    if (!track) {
      track = { firstSeq: event.seq, status: 'idle', openTools: 0, spans: [] };
      this.tracks.set(agent, track);
      this.changeCount += 1;
    }
    const before = busyKind(track);
    change(track);
    const after = busyKind(track);
    if (before === after) return;
    this.changeCount += 1;
    const open = track.spans[track.spans.length - 1];
    if (open && !Number.isFinite(open.endSeq)) {
      open.endSeq = event.seq;
      open.endT = Math.max(open.startT, event.t);
    }
    if (after !== null)
      track.spans.push({
        kind: after,
        startSeq: event.seq,
        startT: event.t,
        endSeq: Infinity,
        endT: Infinity,
      });
  }

  private noteError(event: RunEvent, text: string): void {
    if (this.error) return;
    this.error = { seq: event.seq, t: event.t, agent: event.agent, text };
    this.changeCount += 1;
  }
}

function busyKind(track: AgentTrack): BusyKind | null {
  // A call waiting for a person's approval is a wait for the person, not time in the tool.
  if (track.openTools > 0 && track.status !== 'waiting-for-human') return 'tool';
  switch (track.status) {
    case 'thinking':
      return 'thinking';
    case 'streaming':
      return 'streaming';
    case 'waiting-for-human':
      return 'human';
    case 'idle':
    case 'error':
    case 'done':
      return null;
    default: {
      const unknown: never = track.status;
      return unknown;
    }
  }
}

/** Index of the first span of `spans` (sorted, not overlapping) that ends after `t`. */
export function firstEndingAfter(spans: readonly BusySpan[], t: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((spans[mid] as BusySpan).endT <= t) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The first line of `text`, cut to a length a header line can show. */
function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Busy spans per agent of a whole event log (pure). */
export function busySpans(events: Iterable<RunEvent>): Map<string, BusySpan[]> {
  const tracker = new ActivityTracker();
  for (const event of events) tracker.apply(event);
  return new Map(tracker.agents.map((agent) => [agent, [...tracker.spansOf(agent)]]));
}

/** The `limit` longest waits of a whole event log (pure). */
export function longestWaits(events: Iterable<RunEvent>, limit = 3): Wait[] {
  const tracker = new ActivityTracker();
  for (const event of events) tracker.apply(event);
  return tracker.longestWaits(limit);
}

/** Where the first error of an event log appeared, or null (pure). */
export function firstError(events: Iterable<RunEvent>): FirstError | null {
  const tracker = new ActivityTracker();
  for (const event of events) tracker.apply(event);
  return tracker.firstError;
}

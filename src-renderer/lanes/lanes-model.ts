import { BROADCAST, USER, type RunEvent } from '@shared/domain';
import type { MessageLog } from '../session/message-log';
import type { Timeline } from '../session/timeline';
import { ActivityTracker } from './activity';
import { RowOffsets } from './lane-geometry';
import { LaneRowBuilder, type LaneRows } from './lane-rows';

/**
 * Everything the sequence lens draws of one session, kept up to date as the timeline grows:
 * rows, their offsets, busy time per agent and the names that need a lane. Plain objects (not
 * reactive): the lanes store triggers its ref to the model when it changed.
 */
export class LanesModel {
  readonly offsets: RowOffsets;
  /** Seq at which each agent named by rows or busy time first appeared. */
  private readonly firstSeen = new Map<string, number>();
  private sortedNames: string[] | null = null;
  /** Seq of the last event taken into rows, and into busy time. */
  private applied = 0;
  private appliedActivity = 0;
  private namedRows = 0;

  private constructor(
    readonly rows: LaneRows,
    readonly log: MessageLog,
    /** The timeline (the whole log, or a window of a long one) the model follows. */
    readonly timeline: Timeline,
    private readonly builder: LaneRowBuilder,
    /** Busy time per agent, from the timeline's start (a window's: its agents' statuses there). */
    readonly activity: ActivityTracker,
  ) {
    this.applied = timeline.baseSeq;
    this.appliedActivity = timeline.baseSeq;
    this.offsets = new RowOffsets(rows);
    this.offsets.update();
    this.nameRows();
    for (const name of activity.agents) this.addName(name, activity.firstSeqOf(name));
  }

  /**
   * A model that follows `timeline`; call `ingest` as it grows. A window of a long log (events
   * after `baseSeq` only) starts from what its base holds: the messages known there get rows and
   * agents busy there get bars from that point, so nothing before the window is read.
   */
  static forTimeline(timeline: Timeline): LanesModel {
    const base = timeline.baseSeq;
    const at = base > 0 ? timeline.frameAt(base).view : null;
    const builder = new LaneRowBuilder(timeline.log, base, at?.t ?? 0);
    const activity = new ActivityTracker();
    if (at) activity.seed(at.agents, base, at.t);
    return new LanesModel(builder.rows, timeline.log, timeline, builder, activity);
  }

  /** Seq of the last event whose busy time was taken from the timeline. */
  get seq(): number {
    return this.appliedActivity;
  }

  /**
   * Takes the events the timeline gained since the last call: always into busy time (the
   * header's waits need it), and into rows only with `rows` (while the lens is shown; rows left
   * behind are caught up the next time). True when anything drawn from the model changed (a row,
   * a busy span, a lane, the first error); false for events that only stream text, which the
   * views draw from the display instead.
   */
  ingest(rows = true): boolean {
    const { timeline, builder } = this;
    const events = timeline.events;
    const base = timeline.baseSeq;
    const last = timeline.lastSeq;
    const changesBefore = this.activity.changes;
    for (let seq = this.appliedActivity + 1; seq <= last; seq++)
      this.activity.apply(events[seq - base - 1] as RunEvent);
    if (this.appliedActivity < last) {
      this.appliedActivity = last;
      for (const name of this.activity.agents) this.addName(name, this.activity.firstSeqOf(name));
    }
    let changed = this.activity.changes !== changesBefore;
    if (rows && this.applied < last) {
      const sizeBefore = this.rows.size;
      const handoffsBefore = this.rows.handoffMessages.size;
      for (let seq = this.applied + 1; seq <= last; seq++) builder.apply(events[seq - base - 1] as RunEvent);
      this.applied = last;
      if (this.rows.size !== sizeBefore || this.rows.handoffMessages.size !== handoffsBefore) {
        this.offsets.update();
        this.nameRows();
        changed = true;
      }
    }
    return changed;
  }

  /** Agents named by rows or busy time, in the order they first appeared in the log. */
  get names(): readonly string[] {
    this.sortedNames ??= [...this.firstSeen.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .map(([name]) => name);
    return this.sortedNames;
  }

  private nameRows(): void {
    const { rows, log } = this;
    for (let index = this.namedRows; index < rows.size; index++) {
      const seq = rows.seqs[index] as number;
      if (rows.kinds[index] === 'message') {
        const entry = log.entries[rows.refs[index] as number];
        if (!entry) continue;
        this.addName(entry.from, seq);
        if (entry.to === USER) this.addName(USER, seq);
      } else {
        const note = rows.notes[rows.refs[index] as number];
        if (note?.agent) this.addName(note.agent, seq);
      }
    }
    this.namedRows = rows.size;
  }

  private addName(name: string, seq: number): void {
    if (name === BROADCAST) return;
    const known = this.firstSeen.get(name);
    if (known !== undefined && known <= seq) return;
    this.firstSeen.set(name, seq);
    this.sortedNames = null;
  }
}

/**
 * The lanes, left to right: the person who gave the task (when they take part), the fleet's
 * agents in fleet order (all of them, as the graph shows them), then anyone else in the order
 * first seen. New names only ever join at the right, so lanes do not move while a run is live.
 */
export function laneOrder(fleetAgents: readonly string[], seen: readonly string[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>([BROADCAST]);
  const place = (name: string) => {
    if (placed.has(name)) return;
    placed.add(name);
    order.push(name);
  };
  if (seen.includes(USER)) place(USER);
  for (const name of fleetAgents) place(name);
  for (const name of seen) place(name);
  return order;
}

import { BROADCAST, USER } from '@shared/domain';
import type { MessageLog } from '../session/message-log';
import type { Timeline } from '../session/timeline';
import { ActivityTracker } from './activity';
import { RowOffsets } from './lane-geometry';
import { LaneRowBuilder, LaneRows, rowsOfLog } from './lane-rows';

/**
 * Everything the sequence lens draws of one session, kept up to date as the timeline grows:
 * rows, their offsets, busy time per agent and the names that need a lane. Plain objects (not
 * reactive): views learn of changes through the lanes store's `revision`.
 */
export class LanesModel {
  readonly offsets: RowOffsets;
  /** Agents named by rows or busy time, in the order first seen. */
  readonly names: string[] = [];
  private readonly named = new Set<string>();
  private applied = 0;
  private namedRows = 0;

  private constructor(
    readonly rows: LaneRows,
    readonly log: MessageLog,
    /** The timeline the model follows; null for a model of a preview's page of messages. */
    readonly timeline: Timeline | null,
    private readonly builder: LaneRowBuilder | null,
    /** Busy time per agent; empty for a preview (it has no status events). */
    readonly activity: ActivityTracker,
  ) {
    this.offsets = new RowOffsets(rows);
    this.offsets.update();
    this.nameRows();
  }

  /** A model that follows `timeline`; call `ingest` as it grows. */
  static forTimeline(timeline: Timeline): LanesModel {
    const builder = new LaneRowBuilder(timeline.log);
    return new LanesModel(builder.rows, timeline.log, timeline, builder, new ActivityTracker());
  }

  /** A fixed model of a log known only from its messages (the first draw of a long session). */
  static forLog(log: MessageLog): LanesModel {
    return new LanesModel(rowsOfLog(log), log, null, null, new ActivityTracker());
  }

  /** Seq of the last event taken from the timeline. */
  get seq(): number {
    return this.applied;
  }

  /** Takes the events the timeline gained since the last call; true when anything was added. */
  ingest(): boolean {
    const timeline = this.timeline;
    const builder = this.builder;
    if (!timeline || !builder || this.applied >= timeline.lastSeq) return false;
    const events = timeline.events;
    for (let seq = this.applied + 1; seq <= timeline.lastSeq; seq++) {
      const event = events[seq - 1];
      if (!event) break;
      builder.apply(event);
      this.activity.apply(event);
      this.applied = seq;
    }
    this.offsets.update();
    this.nameRows();
    for (const name of this.activity.agents) this.addName(name);
    return true;
  }

  private nameRows(): void {
    const { rows, log } = this;
    for (let index = this.namedRows; index < rows.size; index++) {
      if (rows.kinds[index] === 'message') {
        const entry = log.entries[rows.refs[index] as number];
        if (!entry) continue;
        this.addName(entry.from);
        if (entry.to === USER) this.addName(USER);
      } else {
        const note = rows.notes[rows.refs[index] as number];
        if (note?.agent) this.addName(note.agent);
      }
    }
    this.namedRows = rows.size;
  }

  private addName(name: string): void {
    if (name === BROADCAST || this.named.has(name)) return;
    this.named.add(name);
    this.names.push(name);
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

import type { FleetInput, RunEvent, SessionSummary } from '@shared/domain';

export const EXPORT_FORMATS = ['json', 'md', 'html', 'otlp'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What every format renders from: the session, its (redacted) fleet and its events, in seq order. */
export interface RenderInput {
  summary: SessionSummary;
  fleet: FleetInput | null;
  /** Read lazily, once. */
  events: Iterable<RunEvent>;
}

/**
 * A format renders to a sequence of string pieces; the caller writes them in chunks. A piece may
 * be as large as one event (a 100 MB message is one piece), never the whole file.
 */
export type Renderer = (input: RenderInput) => Iterable<string>;

import type { EventBody, FleetInput, RunEvent, SessionSummary } from '@shared/domain';

/** What export needs from the store. Events come in seq order and are read lazily. */
export interface SessionReader {
  getSession(id: string): { summary: SessionSummary; fleet: FleetInput | null } | null;
  iterateEvents(sessionId: string): Iterable<RunEvent>;
  countEvents(sessionId: string): number;
}

/** One event of an imported session, before the store assigns session id and seq. */
export type ImportedEvent = { t: number; agent: string | null } & EventBody;

export interface ImportedSessionMeta {
  title: string;
  task: string;
  fleetName: string;
  /** Where it came from: 'fleetscope-json', 'autogen-taskresult', 'autogen-teamstate', 'openai-messages', ... */
  source: string;
  createdAt: number;
  tags: string[];
}

/** What import needs from the store: writes a whole session atomically, or nothing. */
export interface SessionWriter {
  importSession(meta: ImportedSessionMeta, events: Iterable<ImportedEvent>): string;
}

import { z } from 'zod';
import { eventBodySchema } from '@shared/domain';
import type { ImportedEvent, ImportedSessionMeta } from '../../history/ports';
import { TransferError } from './transfer-error';
import { jsonPath, parseAt } from './validate';

/** The header our JSON export writes first: `{"format":"fleetscope-session","version":1,...}`. */
export const FLEETSCOPE_FORMAT = 'fleetscope-session';
export const FLEETSCOPE_VERSION = 1;

const sessionHeaderSchema = z.object({
  title: z.string(),
  task: z.string(),
  fleetName: z.string(),
  createdAt: z.number(),
  tags: z.array(z.string()).default([]),
});

const exportedHeaderShape = { t: z.number().nonnegative(), agent: z.string().nullable() };

/** An exported event: header fields the store reassigns (sessionId, seq) are dropped. */
const importedEventSchema = z.intersection(z.object(exportedHeaderShape), eventBodySchema);

/**
 * The same check as `importedEventSchema`, as one discriminated union of the event kinds with
 * `t` and `agent` added to each: about three times faster (no intersection to merge), but its
 * first issue may differ. The fast reader (fleetscope-stream.ts) uses it and leaves refusals to
 * `parseExportedEvent`, so error messages stay those of the exact path.
 */
const withHeader = eventBodySchema.options.map((option) => option.extend(exportedHeaderShape));
const exportedEventUnion = z.discriminatedUnion(
  'kind',
  withHeader as unknown as [(typeof withHeader)[number], ...Array<(typeof withHeader)[number]>],
);

/** The event if `value` is a valid exported event, else null (see exportedEventUnion). */
export function checkExportedEvent(value: unknown): ImportedEvent | null {
  const result = exportedEventUnion.safeParse(value);
  return result.success ? (result.data as ImportedEvent) : null;
}

/** Checks `format`/`version` and reads the session meta out of the already-read header keys. */
export function fleetscopeMeta(header: Record<string, unknown>): ImportedSessionMeta {
  if (header.version !== FLEETSCOPE_VERSION) {
    throw new TransferError(
      'invalid-input',
      `Invalid file at $.version: this app reads fleetscope-session version ${FLEETSCOPE_VERSION}, the file has ${JSON.stringify(header.version)}.`,
    );
  }
  const session = parseAt(sessionHeaderSchema, header.session, '$.session');
  return { ...session, source: 'fleetscope-json' };
}

/** Validates one exported event; a failure names its JSON path (`$.events[12].payload.message`). */
export function parseExportedEvent(value: unknown, index: number): ImportedEvent {
  return parseAt(importedEventSchema, value, jsonPath('$.events', index));
}

/** The events of a fleetscope JSON already held in memory (small or reordered files). */
export function* eventsFromArray(events: unknown, counter: { messages: number }): Generator<ImportedEvent> {
  if (!Array.isArray(events))
    throw new TransferError('invalid-input', 'Invalid file at $.events: expected an array.');
  for (const [index, value] of events.entries()) {
    const event = parseExportedEvent(value, index);
    if (event.kind === 'message.completed') counter.messages++;
    yield event;
  }
}

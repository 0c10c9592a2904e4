/** Columns of `sessions` that migrations after 8 added: a schema-8 store has none of them. */
const LATER_SESSION_COLUMNS = [
  'sid',
  'stored_at',
  'sample',
  'cost',
  'unpriced_calls',
  'busy_ms',
  'duration_ms',
] as const;

/** A `sessions` row of today's store without the columns a schema-8 store lacks. */
export function schema8SessionRow(row: Record<string, unknown>): Record<string, unknown> {
  const kept = { ...row };
  for (const column of LATER_SESSION_COLUMNS) delete kept[column];
  return kept;
}

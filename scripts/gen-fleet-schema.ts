import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { FLEET_FILE_VERSION, fleetSchema } from '../src-shared/domain/fleet';

/** Where the fleet file's JSON Schema ships, relative to the repository root. */
export const FLEET_SCHEMA_PATH = 'resources/fleet.schema.json';

/**
 * The JSON Schema of a fleet file as people write it (input side: fields with defaults are
 * optional), generated from the zod schema so the two can never disagree.
 */
export function renderFleetSchema(): string {
  const schema = z.toJSONSchema(fleetSchema, { io: 'input', target: 'draft-2020-12' });
  const document = {
    $id: `https://fleetscope.invalid/fleet.v${FLEET_FILE_VERSION}.schema.json`,
    title: 'Fleetscope fleet file',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Writes the schema; run with `FLEETSCOPE_WRITE_SCHEMA=1 npx vitest run --project node fleet-schema`. */
export function writeFleetSchema(root: string): void {
  writeFileSync(`${root}/${FLEET_SCHEMA_PATH}`, renderFleetSchema());
}

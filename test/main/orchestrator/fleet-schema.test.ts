import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseFleet } from '@shared/domain';
import { FLEET_SCHEMA_PATH, renderFleetSchema, writeFleetSchema } from '../../../scripts/gen-fleet-schema';

const root = join(import.meta.dirname, '../../..');
const fleetsDir = join(root, 'resources/fleets');
const exampleFiles = ['scripted', 'openai'].flatMap((folder) =>
  readdirSync(join(fleetsDir, folder)).map((file) => join(folder, file)),
);

describe('resources/fleet.schema.json', () => {
  it('matches the zod schema (regenerate: FLEETSCOPE_WRITE_SCHEMA=1 npx vitest run --project node fleet-schema)', () => {
    if (process.env.FLEETSCOPE_WRITE_SCHEMA === '1') writeFleetSchema(root);
    const shipped = readFileSync(join(root, FLEET_SCHEMA_PATH), 'utf8');
    expect(shipped).toBe(renderFleetSchema());
  });

  it('accepts every example fleet, and so does the runtime validator', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(join(root, FLEET_SCHEMA_PATH), 'utf8')) as object);
    expect(exampleFiles).toHaveLength(9);
    for (const file of exampleFiles) {
      const json: unknown = JSON.parse(readFileSync(join(fleetsDir, file), 'utf8'));
      expect(validate(json), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const parsed = parseFleet(json);
      expect(parsed.ok && parsed.warnings, file).toEqual([]);
    }
  });

  it('rejects a fleet file that breaks the schema', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(join(root, FLEET_SCHEMA_PATH), 'utf8')) as object);
    expect(validate({ version: 2, name: 'x', agents: [], team: { pattern: 'mesh' } })).toBe(false);
  });
});

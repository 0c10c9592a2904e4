import { readFileSync } from 'node:fs';
import { parseFleet, type Fleet } from '@shared/domain';

export type LoadedFleet = { fleet: Fleet; warnings: string[] } | { error: string };

/**
 * Checks a fleet object's rules before anything is opened (a bad file never creates a data
 * folder); the error text names each field that is wrong. Tool names are checked with the rest
 * once the run's cap and overrides are applied (`checkFleetToRun`).
 */
export function checkFleet(input: unknown, origin = 'The fleet'): LoadedFleet {
  const parsed = parseFleet(input);
  if (!parsed.ok) {
    const lines = parsed.issues.map((issue) => `  ${issue.path}: ${issue.message}`);
    return { error: `${origin} is invalid:\n${lines.join('\n')}` };
  }
  return { fleet: parsed.fleet, warnings: parsed.warnings.map((issue) => `${issue.path}: ${issue.message}`) };
}

/** Reads and checks a fleet file (CLI, API). */
export function loadFleetFile(path: string): LoadedFleet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      error: `Cannot read the fleet file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `The fleet file ${path} is not valid JSON: ${(error as Error).message}.` };
  }
  return checkFleet(json, `The fleet file ${path}`);
}

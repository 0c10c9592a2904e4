import type { Fleet } from './fleet';
import { validateFleet, type FleetIssue } from './fleet-validate';

declare const checked: unique symbol;

/**
 * A fleet that passed the one check a fleet passes before it runs (`checkFleetToRun`): every rule
 * of `validateFleet` with the tool names the runtime offers. The run session takes only this, so a
 * fleet is validated once per run however it got there (launch, continue, fork).
 */
export type CheckedFleet = Fleet & { readonly [checked]: true };

/** A fleet ready to run, with what the check warned about as `path: message` lines. */
export interface FleetToRun {
  fleet: CheckedFleet;
  warnings: string[];
}

/** The fleet has errors the runtime cannot run with; each names its field. */
export class FleetInvalidError extends Error {
  constructor(readonly issues: readonly FleetIssue[]) {
    super(`The fleet is invalid: ${issues.map(issueLine).join('; ')}`);
    this.name = 'FleetInvalidError';
  }
}

function issueLine(issue: FleetIssue): string {
  return `${issue.path}: ${issue.message}`;
}

/**
 * Checks a fleet as it will run (message cap and provider overrides already applied) against
 * `knownTools`, the names of the registry the run offers; MCP `server/tool` names are checked
 * against the fleet's `mcpServers` (the servers say which tools they have when they start).
 * Throws FleetInvalidError listing every error.
 */
export function checkFleetToRun(fleet: Fleet, knownTools: readonly string[]): FleetToRun {
  const issues = validateFleet(fleet, { knownTools });
  const errors = issues.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) throw new FleetInvalidError(errors);
  return { fleet: fleet as CheckedFleet, warnings: issues.map(issueLine) };
}

import { silentLogger, type Logger } from '@shared/logger';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FleetSummary } from '@shared/contract';
import {
  parseFleet,
  parseFleetShape,
  restoreFleetSecrets,
  type Fleet,
  type FleetInput,
  type FleetIssue,
} from '@shared/domain';
import type { HistoryStore } from '../../history';
import { AppError } from '../handlers/errors';

const EXAMPLE_PREFIX = 'example:';

interface Example {
  id: string;
  fleet: Fleet;
  raw: FleetInput;
}

function isScripted(fleet: Fleet): boolean {
  return fleet.agents.every(
    (agent) =>
      agent.type === 'scripted' ||
      agent.type === 'human' ||
      (agent.type === 'team' && agent.fleet !== undefined && isScripted(agent.fleet)) ||
      agent.provider?.id === 'scripted',
  );
}

function summarize(id: string, fleet: Fleet, example: boolean, updatedAt: number | null): FleetSummary {
  return {
    id,
    name: fleet.name,
    description: fleet.description,
    example,
    scripted: isScripted(fleet),
    agentCount: fleet.agents.length,
    pattern: fleet.team.pattern,
    updatedAt,
  };
}

/** Saved fleets (in the store) and the examples shipped in resources/fleets (read-only). */
export class FleetCatalog {
  private examples: Example[] | null = null;

  constructor(
    private readonly store: HistoryStore,
    private readonly examplesDir: string,
    private readonly logger: Logger = silentLogger,
  ) {}

  list(): FleetSummary[] {
    const saved = this.store.listFleets().flatMap((row) => {
      const found = this.store.getFleet(row.id);
      const parsed = found ? parseFleet(found.fleet) : null;
      return parsed?.ok ? [summarize(row.id, parsed.fleet, false, row.updatedAt)] : [];
    });
    const examples = this.loadExamples().map((example) => summarize(example.id, example.fleet, true, null));
    return [...saved, ...examples];
  }

  /** The fleet as written (defaults not applied) and its summary. */
  get(id: string): { summary: FleetSummary; fleet: FleetInput; parsed: Fleet } {
    const example = this.example(id);
    if (example)
      return {
        summary: summarize(example.id, example.fleet, true, null),
        fleet: example.raw,
        parsed: example.fleet,
      };
    const saved = this.store.getFleet(id);
    if (!saved) throw new AppError('not-found', `No fleet with id "${id}".`);
    const parsed = this.parse(saved.fleet);
    return { summary: summarize(saved.id, parsed, false, saved.updatedAt), fleet: saved.fleet, parsed };
  }

  /**
   * A saved fleet or an example to run, read for its shape only: the run checks its rules once,
   * with the changes the run makes (`checkFleetToRun`). Throws AppError not-found or invalid-input.
   */
  toRun(id: string): Fleet {
    const example = this.example(id);
    if (example) return example.fleet;
    const saved = this.store.getFleet(id);
    if (!saved) throw new AppError('not-found', `No fleet with id "${id}".`);
    return this.shape(saved.fleet);
  }

  /** Reads a fleet object's shape (schema and defaults) or throws AppError invalid-input. */
  shape(input: unknown): Fleet {
    const result = parseFleetShape(input);
    if (result.ok) return result.fleet;
    throw invalidFleet(result.issues);
  }

  private example(id: string): Example | undefined {
    return this.loadExamples().find(
      (candidate) => candidate.id === id || candidate.id === EXAMPLE_PREFIX + id,
    );
  }

  /** Saves a new fleet (no id) or replaces the saved fleet `id`, which must exist. */
  save(input: unknown, id?: string): FleetSummary {
    if (id?.startsWith(EXAMPLE_PREFIX)) {
      throw new AppError('read-only', 'Examples cannot be changed; duplicate the fleet to edit it.');
    }
    if (id !== undefined) this.requireSaved(id);
    const parsed = this.parse(input);
    const saved = this.store.saveFleet(input as FleetInput, id);
    return summarize(saved.id, parsed, false, saved.updatedAt);
  }

  /**
   * A recorded fleet (a session's snapshot, whose MCP env and header values were recorded as
   * markers) with each marker given the value the fleet of the same name has there: saved fleets
   * first, then examples. Markers no such fleet fills stay as they are.
   */
  withSavedSecrets<F extends FleetInput>(fleet: F): F {
    const sources = [
      ...this.store
        .listFleets()
        .map((row) => this.store.getFleet(row.id)?.fleet)
        .filter((saved): saved is FleetInput => saved?.name === fleet.name),
      ...this.loadExamples()
        .filter((example) => example.fleet.name === fleet.name)
        .map((example) => example.raw),
    ];
    return sources.reduce<F>((restored, source) => restoreFleetSecrets(restored, source), fleet);
  }

  delete(id: string): boolean {
    if (id.startsWith(EXAMPLE_PREFIX)) throw new AppError('read-only', 'Examples cannot be deleted.');
    this.requireSaved(id);
    return this.store.deleteFleet(id);
  }

  private requireSaved(id: string): void {
    if (!this.store.getFleet(id)) throw new AppError('not-found', `No saved fleet with id "${id}".`);
  }

  /** Validates a fleet or throws AppError invalid-input listing every problem by field. */
  parse(input: unknown): Fleet {
    const result = parseFleet(input);
    if (result.ok) return result.fleet;
    throw invalidFleet(result.issues);
  }

  private loadExamples(): Example[] {
    if (this.examples) return this.examples;
    const examples: Example[] = [];
    for (const file of jsonFiles(this.examplesDir)) {
      try {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as FleetInput;
        const result = parseFleet(raw);
        const name = relative(this.examplesDir, file)
          .replace(/\\/g, '/')
          .replace(/\.json$/, '');
        if (result.ok) examples.push({ id: EXAMPLE_PREFIX + name, fleet: result.fleet, raw });
      } catch (error) {
        // A broken example file is skipped; the example tests catch it before release.
        this.logger.warn('An example fleet could not be read; skipped', { file, err: error });
      }
    }
    // Keyless examples first: they run anywhere.
    examples.sort(
      (a, b) => Number(isScripted(b.fleet)) - Number(isScripted(a.fleet)) || a.id.localeCompare(b.id),
    );
    this.examples = examples;
    return examples;
  }
}

function invalidFleet(issues: readonly FleetIssue[]): AppError {
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return new AppError('invalid-input', `The fleet is not valid: ${detail}`);
}

/** Every .json file under `dir`, one folder level deep at most (examples are grouped by provider). */
function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.json')) files.push(full);
    else if (entry.isDirectory()) {
      for (const inner of readdirSync(full).sort())
        if (inner.endsWith('.json')) files.push(join(full, inner));
    }
  }
  return files;
}

import type { FleetInput, RunEvent } from '@shared/domain';

/** Field names whose values are credentials, wherever they appear in a fleet snapshot. */
const SECRET_KEY =
  /^(api[-_]?key|x-api-key|authorization|proxy-authorization|password|secret|client[-_]?secret|access[-_]?token|bearer[-_]?token)$/i;
const REDACTED = '[redacted]';
/** Shorter environment values are too likely to match ordinary text to be redacted safely. */
const MIN_SECRET_LENGTH = 8;

function collectKeyEnvNames(value: unknown, names: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectKeyEnvNames(item, names);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'apiKeyEnv' && typeof item === 'string') names.add(item);
      else collectKeyEnvNames(item, names);
    }
  }
}

/**
 * Removes secrets from what an export writes. Fleets name the environment variable that holds a
 * key (`apiKeyEnv`), never the key; this is the defensive second line: key-like fields are
 * dropped from fleet snapshots, and the values of those variables are masked anywhere.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(fleets: unknown[], env: NodeJS.ProcessEnv) {
    const names = new Set<string>();
    for (const fleet of fleets) collectKeyEnvNames(fleet, names);
    this.secrets = [...names].flatMap((name) => {
      const value = env[name];
      return value !== undefined && value.length >= MIN_SECRET_LENGTH ? [value] : [];
    });
  }

  fleet(fleet: FleetInput | null): FleetInput | null {
    return fleet === null ? null : (this.clean(fleet, true) as FleetInput);
  }

  event(event: RunEvent): RunEvent {
    if (event.kind === 'session.started') {
      return {
        ...event,
        payload: {
          ...event.payload,
          fleet: this.clean(event.payload.fleet, true) as typeof event.payload.fleet,
        },
      };
    }
    return this.secrets.length === 0 ? event : (this.clean(event, false) as RunEvent);
  }

  /** Any JSON value with the secret values masked in every string (a comparison, a message). */
  value<T>(value: T): T {
    return this.secrets.length === 0 ? value : (this.clean(value, false) as T);
  }

  private clean(value: unknown, dropKeys: boolean): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (Array.isArray(value)) return value.map((item) => this.clean(item, dropKeys));
    if (typeof value !== 'object' || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (dropKeys && SECRET_KEY.test(key)) continue;
      copy[key] = this.clean(item, dropKeys);
    }
    return copy;
  }

  private mask(text: string): string {
    let masked = text;
    for (const secret of this.secrets)
      if (masked.includes(secret)) masked = masked.replaceAll(secret, REDACTED);
    return masked;
  }
}

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { RetentionPreview } from '@shared/contract';
import { silentLogger, type Logger } from '@shared/logger';
import type { HistoryStore } from '../../history';
import type { SqliteDatabase } from '../../history/database';
import { NamedSetting } from '../../history/named-setting';
import type { SettingsStore } from '../../history/settings-store';

/** How often a long-lived host (the desktop app, `serve`) applies retention, in ms. */
export const RETENTION_INTERVAL_MS = 60 * 60_000;

/** Sessions a preview names (the count covers them all). */
const PREVIEW_NAMES = 20;

export interface RetentionOptions {
  store: HistoryStore;
  db: SqliteDatabase;
  settings: SettingsStore;
  /** The seeded samples (resources/samples): sessions imported from them are never deleted. */
  samplesDir: string;
  logger?: Logger;
}

/**
 * Retention: deletes finished sessions that entered this store more than Settings' retentionDays
 * ago. Nothing is deleted behind the user's back: a number of days only applies once confirmed
 * (saved through settings.set, which the Settings page does after showing the preview, or
 * `fleetscope retention --apply`); a value found in a store without confirmation waits. It runs
 * only where asked (long-lived hosts, hourly, and the explicit CLI command), never from a
 * reading command. Seeded samples and sessions with forks are kept.
 */
export class RetentionService {
  private readonly confirmed: NamedSetting<number | null>;
  private readonly logger: Logger;
  private samplesMarked = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: RetentionOptions) {
    this.confirmed = new NamedSetting(
      options.db,
      'internal.retentionConfirmedDays',
      z.number().int().positive().nullable(),
      null,
    );
    this.logger = options.logger ?? silentLogger;
  }

  /** What retention would delete now with `days` (default: the setting), without deleting. */
  preview(days: number | null = this.options.settings.get().retentionDays): RetentionPreview {
    const candidates = days === null ? [] : this.options.store.retentionCandidates(days);
    return {
      days,
      count: candidates.length,
      sessions: candidates
        .slice(0, PREVIEW_NAMES)
        .map(({ id, title, storedAt }) => ({ id, title: title.slice(0, 200), storedAt })),
      confirmed: days === null || this.confirmed.get() === days,
    };
  }

  /** Records that the user saw what `days` deletes and chose it (null: keep everything). */
  confirm(days: number | null): void {
    this.confirmed.set(days);
  }

  /** Deletes what the confirmed setting says; returns the deleted ids (none while unconfirmed). */
  apply(): string[] {
    const days = this.options.settings.get().retentionDays;
    if (days === null) return [];
    if (this.confirmed.get() !== days) {
      this.logger.info('Retention waits until its setting is confirmed in Settings', { days });
      return [];
    }
    this.markSamples();
    const deleted = this.options.store.deleteSessionsOlderThan(days);
    if (deleted.length > 0) this.logger.info('Retention deleted sessions', { days, sessions: deleted });
    return deleted;
  }

  /** Applies now and then every `intervalMs` until dispose (long-lived hosts). */
  start(intervalMs = RETENTION_INTERVAL_MS): void {
    const run = () => {
      try {
        this.apply();
      } catch (error) {
        this.logger.error('Retention failed; it is tried again later', { err: error });
      }
    };
    run();
    this.timer = setInterval(run, intervalMs);
    this.timer.unref?.();
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Marks the sessions imported from the sample files (once per process; a few small files). */
  markSamples(): void {
    if (this.samplesMarked) return;
    this.samplesMarked = true;
    const dir = this.options.samplesDir;
    if (!existsSync(dir)) return;
    const hashes = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) =>
        createHash('sha256')
          .update(readFileSync(join(dir, name)))
          .digest('hex'),
      );
    this.options.store.markSamples(hashes);
  }
}

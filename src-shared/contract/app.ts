import { z } from 'zod';
import { httpUrlSchema, priceOverrideSchema } from '../domain';
import { command, query } from './define';

export const SURFACES = ['desktop', 'browser', 'cli'] as const;

export const THEMES = ['system', 'light', 'dark'] as const;

const settingFields = {
  theme: z.enum(THEMES),
  /** Delete sessions older than this many days; null keeps everything. */
  retentionDays: z.number().int().positive().nullable(),
  /** Stop a run when a session reaches this many messages; null means no cap. */
  maxMessagesPerSession: z.number().int().positive().nullable(),
  sidebarCollapsed: z.boolean(),
  /**
   * Stream every run's spans live to this OTLP/HTTP collector (base address; `/v1/traces` is
   * added unless present); null turns live export off. Headers come from the environment
   * (OTEL_EXPORTER_OTLP_HEADERS), never from Settings, so credentials stay out of the store.
   */
  otlpExportEndpoint: httpUrlSchema.nullable(),
  /**
   * Prices that replace the price table's for one provider and model (a local model at 0, a
   * custom endpoint's own prices); applied to model calls recorded from then on.
   */
  priceOverrides: z.array(priceOverrideSchema).max(500),
};

/** User settings, persisted in the store. Every field has a default so old stores keep working. */
export const settingsSchema = z.object({
  theme: settingFields.theme.default('system'),
  retentionDays: settingFields.retentionDays.default(null),
  maxMessagesPerSession: settingFields.maxMessagesPerSession.default(null),
  sidebarCollapsed: settingFields.sidebarCollapsed.default(false),
  otlpExportEndpoint: settingFields.otlpExportEndpoint.default(null),
  priceOverrides: settingFields.priceOverrides.default([]),
});

/** A change to some settings: only the fields given are written (no defaults filled in). */
export const settingsPatchSchema = z.object(settingFields).partial().strict();
export type Settings = z.infer<typeof settingsSchema>;

/** What retention would delete now: the preview shown before a number of days is saved. */
export const retentionPreviewSchema = z.object({
  days: settingFields.retentionDays,
  /** Sessions it would delete now (samples and sessions with forks are kept). */
  count: z.number().int().nonnegative(),
  /** The first of them, newest first. */
  sessions: z
    .array(
      z.object({
        id: z.string().max(200),
        title: z.string().max(200),
        /** When it entered this store (epoch ms); retention counts from then. */
        storedAt: z.number().int(),
      }),
    )
    .max(20),
  /** False while a saved number of days waits for the user to confirm it (nothing is deleted). */
  confirmed: z.boolean(),
});
export type RetentionPreview = z.infer<typeof retentionPreviewSchema>;

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  dataDir: z.string(),
  surface: z.enum(SURFACES),
  platform: z.string(),
  /**
   * The data folder (or its store file) cannot be written: sessions can be browsed, searched,
   * replayed, compared and exported elsewhere; every writing control is disabled.
   */
  readOnly: z.boolean().optional(),
  /**
   * What the store did or could not do that the person should know, newest last: a damaged store
   * recovered, a full disk that stopped the runs. `store.changed` with topic `app` announces one.
   */
  notices: z.array(z.string()).optional(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const appChannels = {
  'app.info': query(z.object({}).strict(), appInfoSchema, 'Version, data folder and surface.'),
  'settings.get': query(z.object({}).strict(), settingsSchema, 'All settings.'),
  'settings.set': command(
    settingsPatchSchema,
    settingsSchema,
    'Change some settings; returns all of them. Saving retentionDays confirms it: retention then applies.',
  ),
  'settings.retentionPreview': query(
    z.object({ days: settingFields.retentionDays.optional() }).strict(),
    retentionPreviewSchema,
    'What retention would delete now with these days (default: the saved setting); deletes nothing.',
  ),
} as const;

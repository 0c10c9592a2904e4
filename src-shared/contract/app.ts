import { z } from 'zod';
import { command, query } from './define';

export const SURFACES = ['desktop', 'browser', 'cli'] as const;

export const THEMES = ['system', 'light', 'dark'] as const;

/** User settings, persisted in the store. Every field has a default so old stores keep working. */
export const settingsSchema = z.object({
  theme: z.enum(THEMES).default('system'),
  /** Delete sessions older than this many days; null keeps everything. */
  retentionDays: z.number().int().positive().nullable().default(null),
  /** Stop a run when a session reaches this many messages; null means no cap. */
  maxMessagesPerSession: z.number().int().positive().nullable().default(null),
  sidebarCollapsed: z.boolean().default(false),
});
export type Settings = z.infer<typeof settingsSchema>;

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  dataDir: z.string(),
  surface: z.enum(SURFACES),
  platform: z.string(),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const appChannels = {
  'app.info': query(z.object({}).strict(), appInfoSchema, 'Version, data folder and surface.'),
  'settings.get': query(z.object({}).strict(), settingsSchema, 'All settings.'),
  'settings.set': command(
    settingsSchema.partial().strict(),
    settingsSchema,
    'Change some settings; returns all of them.',
  ),
} as const;

import type { Migration } from './runner';
import { settingsTable } from './001-settings';

/** Every schema step in order. Append only; never edit a released migration. */
export const MIGRATIONS: readonly Migration[] = [settingsTable];
export type { Migration } from './runner';
export { migrate } from './runner';

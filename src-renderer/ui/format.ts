import type { SessionStatus } from '@shared/domain';
import type { ExportFormat } from '@shared/contract';

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A playhead clock: m:ss.t */
export function formatClock(ms: number): string {
  const total = Math.max(0, ms) / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return `${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}

/** How much of an idle gap replay skips (`ms` of it), as "13 min skipped". */
export function formatSkipped(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s skipped`;
  if (minutes < 60) return `${minutes} min skipped`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min skipped`;
}

export function formatCount(value: number): string {
  if (value < 10_000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(value < 100_000 ? 1 : 0)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

const WALL_CLOCK = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A wall-clock date and time to the second, in the user's locale ("18 Aug 2025, 14:32:58"). */
export function formatWallClock(epochMs: number): string {
  return WALL_CLOCK.format(new Date(epochMs));
}

export function formatWhen(epochMs: number, now = Date.now()): string {
  const date = new Date(epochMs);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { year: 'numeric', month: 'short', day: 'numeric' });
}

export const STATUS_LABELS: Record<SessionStatus, string> = {
  running: 'Running',
  paused: 'Paused',
  'waiting-for-human': 'Waiting for you',
  completed: 'Completed',
  stopped: 'Stopped',
  failed: 'Failed',
  interrupted: 'Interrupted',
};

export { stopReasonSentence } from '@shared/domain';

/** Export formats by what a person calls them. */
export const EXPORT_FORMAT_LABELS: Record<ExportFormat, string> = {
  md: 'Markdown',
  html: 'Web page (HTML)',
  json: 'Fleetscope JSON',
  otlp: 'OpenTelemetry JSON',
};

/** The order formats are offered in: readable ones first. */
export const EXPORT_MENU_ORDER: readonly ExportFormat[] = ['html', 'md', 'json', 'otlp'];

/** The built-in scripted provider's model name, as people see it. */
export const SCRIPTED_LABEL = 'Scripted demo';

/** A model as people see it: the scripted provider's placeholder model is a "Scripted demo". */
export function modelLabel(model: string, providerId?: string): string {
  if (providerId === 'scripted' || model === 'scripted') return SCRIPTED_LABEL;
  return model;
}

/** A provider reference in one phrase: "Scripted demo", or "openai · gpt-4o-mini". */
export function providerLabel(provider: { id: string; model?: string } | undefined): string {
  if (!provider) return 'no provider';
  if (provider.id === 'scripted') return SCRIPTED_LABEL;
  return `${provider.id} · ${provider.model || 'no model'}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

import type { ChannelName } from '@shared/contract';
import { AppError } from './errors';
import type { Handlers } from './dispatcher';

/**
 * Commands that change the store or the data folder. In a read-only folder they are refused
 * with a `read-only` error; every other channel (queries, watching, exports to another folder,
 * testing a provider) works.
 */
export const WRITING_COMMANDS = [
  'settings.set',
  'branches.fork',
  'fleets.save',
  'fleets.delete',
  'providers.save',
  'providers.setKey',
  'runs.start',
  'runs.control',
  'runs.answer',
  'runs.continue',
  'sessions.rename',
  'sessions.tag',
  'sessions.delete',
  'sessions.importData',
  'traces.configure',
] as const satisfies readonly ChannelName[];

/** The sentence a refused write shows (the folder is named: it is the one to copy). */
export function readOnlyMessage(dataDir: string): string {
  return (
    `The data folder ${dataDir} is read-only (a read-only folder, share or backup): sessions can be browsed, ` +
    'searched, replayed, compared and exported to another folder, but not changed. ' +
    'To change them, copy the folder somewhere writable and open that one.'
  );
}

/** `handlers` with every writing command refused (see WRITING_COMMANDS). */
export function refuseWrites(handlers: Handlers, dataDir: string): Handlers {
  const refused = { ...handlers };
  const refuse = () => {
    throw new AppError('read-only', readOnlyMessage(dataDir));
  };
  for (const channel of WRITING_COMMANDS) Object.assign(refused, { [channel]: refuse });
  return refused;
}

import { LIVE_STATUSES } from '@shared/domain';

/** The live statuses as an SQL list (`'running', 'paused', ...`), from the one list in src-shared. */
export const LIVE_SQL = LIVE_STATUSES.map((status) => `'${status}'`).join(', ');

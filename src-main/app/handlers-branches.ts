import type { Handlers } from './dispatcher';
import { AppError } from './errors';

type BranchHandlers = Pick<
  Handlers,
  'branches.fork' | 'branches.family' | 'branches.compare' | 'branches.exportCompare'
>;

/** Fork, family tree and compare channels (being built: they answer unavailable for now). */
export function registerBranchHandlers(): BranchHandlers {
  const notYet = (): never => {
    throw new AppError('unavailable', 'Forking and comparing sessions are not available yet.');
  };
  return {
    'branches.fork': notYet,
    'branches.family': notYet,
    'branches.compare': notYet,
    'branches.exportCompare': notYet,
  };
}

import type { Handlers } from './dispatcher';
import type { BranchService } from '../services/branch-service';
import type { RunService } from '../services/run-service';

type RunHandlers = Pick<
  Handlers,
  'runs.start' | 'runs.control' | 'runs.answer' | 'runs.continue' | 'runs.active' | 'runs.resumeCheck'
>;

/** `runs.continue` goes through the branches: a read-only session is continued in a fork. */
export function registerRunHandlers(runs: RunService, branches: BranchService): RunHandlers {
  return {
    'runs.start': ({ source, task, title, folder }) => runs.start(source, task, title, folder),
    'runs.control': ({ sessionId, action }) => runs.control(sessionId, action),
    'runs.answer': ({ sessionId, requestId, text }) => runs.answer(sessionId, requestId, text),
    'runs.continue': ({ sessionId, task, context, agents, fleet }) => ({
      sessionId: branches.continue({ sessionId, task, context, agents, ...(fleet ? { fleet } : {}) })
        .sessionId,
    }),
    'runs.active': () => runs.active(),
    'runs.resumeCheck': ({ sessionId }) => runs.resumeCheck(sessionId),
  };
}

import type { Handlers } from './dispatcher';
import { AppError } from './errors';
import type { RunService } from './run-service';

type RunHandlers = Pick<
  Handlers,
  'runs.start' | 'runs.control' | 'runs.answer' | 'runs.continue' | 'runs.active' | 'runs.resumeCheck'
>;

export function registerRunHandlers(runs: RunService): RunHandlers {
  return {
    'runs.start': ({ source, task, title }) => runs.start(source, task, title),
    'runs.control': ({ sessionId, action }) => runs.control(sessionId, action),
    'runs.answer': ({ sessionId, requestId, text }) => runs.answer(sessionId, requestId, text),
    'runs.continue': ({ sessionId, task, context }) => runs.continue(sessionId, task, context),
    'runs.active': () => runs.active(),
    'runs.resumeCheck': () => {
      throw new AppError('unavailable', 'Checking whether a session can be continued is not available yet.');
    },
  };
}

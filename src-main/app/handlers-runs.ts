import type { Handlers } from './dispatcher';
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
    'runs.continue': ({ sessionId, task, context, agents, fleet }) => {
      runs.resume({ sessionId, task, context, agents, ...(fleet ? { fleet } : {}) });
      return { sessionId };
    },
    'runs.active': () => runs.active(),
    'runs.resumeCheck': ({ sessionId }) => runs.resumeCheck(sessionId),
  };
}

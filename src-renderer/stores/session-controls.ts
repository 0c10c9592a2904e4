import type { Bridge } from '../bridge';
import type { OpenSessionState } from './session-state';

export type RunAction = 'pause' | 'resume' | 'step' | 'stop';

/** Commands to the run behind the open session. Each resolves false (and says why) on failure. */
export interface RunControls {
  control(action: RunAction): Promise<boolean>;
  /** Answers the human-input request `requestId`. */
  answer(requestId: string, text: string): Promise<boolean>;
  /** Continues a finished session with a follow-up task; the view follows the new events. */
  continueRun(task: string, context: Record<string, string>): Promise<boolean>;
}

export function createRunControls(
  state: OpenSessionState,
  bridge: Bridge,
  report: (message: string) => void,
): RunControls {
  function fail(message: string): false {
    state.error.value = message;
    report(message);
    return false;
  }

  async function control(action: RunAction): Promise<boolean> {
    const sessionId = state.sessionId.value;
    if (!sessionId) return false;
    const result = await bridge.call('runs.control', { sessionId, action });
    if (!result.ok) return fail(`Could not ${action} the run: ${result.error.message}`);
    return true;
  }

  async function answer(requestId: string, text: string): Promise<boolean> {
    const sessionId = state.sessionId.value;
    if (!sessionId) return false;
    const result = await bridge.call('runs.answer', { sessionId, requestId, text });
    if (!result.ok) return fail(`Could not send the answer: ${result.error.message}`);
    return true;
  }

  async function continueRun(task: string, context: Record<string, string>): Promise<boolean> {
    const sessionId = state.sessionId.value;
    if (!sessionId) return false;
    const result = await bridge.call('runs.continue', { sessionId, task, context });
    if (!result.ok) return fail(`Could not continue the session: ${result.error.message}`);
    state.following.value = true;
    return true;
  }

  return { control, answer, continueRun };
}

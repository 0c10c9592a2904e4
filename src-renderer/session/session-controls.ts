import type { Bridge } from '../bridge';
import type { FailureReporter } from '../ui/failure';
import { useSessionDisplayStore } from './session-display-store';
import { useSessionInfoStore } from './session-info-store';

export type RunAction = 'pause' | 'resume' | 'step' | 'stop';

/** Commands to the run behind the open session. Each resolves false (and says why) on failure. */
export interface RunControls {
  control(action: RunAction): Promise<boolean>;
  /** Answers the human-input request `requestId`. */
  answer(requestId: string, text: string): Promise<boolean>;
  /**
   * Continues a finished session with a follow-up task; the view follows the new events. A
   * read-only session goes on in a fork, which the view then opens.
   */
  continueRun(task: string, context: Record<string, string>): Promise<boolean>;
}

/**
 * `fail` shows what went wrong (the store's error line and a toast). Acts on the session the
 * session stores hold (info, display), which must be active.
 */
export function createRunControls(bridge: Bridge, fail: FailureReporter): RunControls {
  const info = useSessionInfoStore();
  const playback = useSessionDisplayStore();
  async function control(action: RunAction): Promise<boolean> {
    const sessionId = info.sessionId;
    if (!sessionId) return false;
    const result = await bridge.call('runs.control', { sessionId, action });
    if (!result.ok) return fail(result.error, false, `Could not ${action} the run`);
    return true;
  }

  async function answer(requestId: string, text: string): Promise<boolean> {
    const sessionId = info.sessionId;
    if (!sessionId) return false;
    const result = await bridge.call('runs.answer', { sessionId, requestId, text });
    if (!result.ok) return fail(result.error, false, 'Could not send the answer');
    return true;
  }

  async function continueRun(task: string, context: Record<string, string>): Promise<boolean> {
    const sessionId = info.sessionId;
    if (!sessionId) return false;
    const result = await bridge.call('runs.continue', { sessionId, task, context });
    if (!result.ok) return fail(result.error, false, 'Could not continue the session');
    if (result.value.sessionId !== sessionId) {
      // A read-only session stays as it is: it went on in a new fork, which opens instead.
      window.location.hash = `#/sessions/${encodeURIComponent(result.value.sessionId)}`;
      return true;
    }
    playback.following = true;
    return true;
  }

  return { control, answer, continueRun };
}

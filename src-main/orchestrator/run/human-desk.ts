import type { ToolApproval } from '@shared/domain';
import type { EventRecorder } from '../runtime/recorder';
import { newId } from '../runtime/ids';
import { TurnAborted } from '../agents/agent';

export interface HumanRequest {
  requestId: string;
  agent: string;
  prompt: string;
}

/** Open questions to people; answering one resumes the agent that asked. */
export class HumanDesk {
  private readonly pending = new Map<string, HumanRequest & { resolve(text: string): void }>();

  constructor(
    private readonly recorder: EventRecorder,
    private readonly onWaiting: (waiting: boolean) => void,
  ) {}

  list(): HumanRequest[] {
    return [...this.pending.values()].map(({ requestId, agent, prompt }) => ({ requestId, agent, prompt }));
  }

  /** Asks a person; `approval` marks the question as whether a tool call may run. */
  ask(agent: string, prompt: string, signal: AbortSignal, approval?: ToolApproval): Promise<string> {
    const requestId = newId('ask');
    return new Promise<string>((resolve, reject) => {
      if (signal.aborted) return reject(new TurnAborted());
      const onAbort = () => {
        this.pending.delete(requestId);
        reject(new TurnAborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, {
        requestId,
        agent,
        prompt,
        resolve: (text) => {
          signal.removeEventListener('abort', onAbort);
          resolve(text);
        },
      });
      this.recorder.emit(agent, {
        kind: 'human.requested',
        payload: { requestId, prompt, ...(approval ? { approval } : {}) },
      });
      this.recorder.emit(agent, { kind: 'agent.status', payload: { status: 'waiting-for-human' } });
      this.onWaiting(true);
    });
  }

  /** Returns false when no such request is open. */
  answer(requestId: string, text: string): boolean {
    const request = this.pending.get(requestId);
    if (!request) return false;
    this.pending.delete(requestId);
    this.recorder.emit(request.agent, { kind: 'human.given', payload: { requestId, text } });
    if (this.pending.size === 0) this.onWaiting(false);
    request.resolve(text);
    return true;
  }
}

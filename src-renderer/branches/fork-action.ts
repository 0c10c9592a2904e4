import {
  computed,
  inject,
  onBeforeUnmount,
  onMounted,
  provide,
  type ComputedRef,
  type InjectionKey,
} from 'vue';
import type { Message } from '@shared/domain';
import { useSessionStore } from '../session/session-store';
import { useBranchesStore } from './branches-store';
import { useConnectionStore, READ_ONLY_FOLDER } from '../shell/connection-store';
import type { LogEntry } from '../session/message-log';
import { forkPointAt, forkPointBlocker, hasForkPointAt, messageNumberOf } from './message-number';

/**
 * "Fork here" as the session view offers it to its parts (each transcript message and the replay
 * bar) without threading events through the components in between.
 */
export interface ForkAction {
  /** Why this message cannot be forked from, or null. */
  blockerFor(message: Message): string | null;
  /** Opens the fork editor at a message of the open session. */
  atMessage(messageId: string): void;
  /** Opens the fork editor at the last message complete at the replay playhead. */
  atPlayhead(): void;
  /** Why the playhead has nothing to fork from, or null. */
  playheadBlocker: ComputedRef<string | null>;
}

const FORK_ACTION: InjectionKey<ForkAction> = Symbol('fork-action');

/** A fork starts from a stored history that no longer moves (the backend refuses live ones too). */
const RUNNING = 'The session is still running: stop it (or wait for it to end) to fork it.';

/** The action for components inside a session view; null anywhere else (they hide their button). */
export function injectForkAction(): ForkAction | null {
  return inject(FORK_ACTION, null);
}

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable;
}

/**
 * Provides the fork action to the session view's children and binds F: fork at the message that
 * has focus or is under the pointer, else at the replay playhead.
 */
export function provideForkAction(): ForkAction {
  const session = useSessionStore();
  const branches = useBranchesStore();
  const connection = useConnectionStore();

  const speakers = (): string[] => [
    ...new Set(
      session
        .getLog()
        .entries.map((entry) => entry.from)
        .filter((from) => from !== 'user'),
    ),
  ];

  function open(entry: LogEntry, atMessage: number): void {
    const sessionId = session.sessionId;
    if (!sessionId || !entry.final) return;
    void branches.openEditor({
      sessionId,
      atMessage,
      from: entry.final.from,
      text: entry.final.content,
      speakers: speakers(),
    });
  }

  const playheadBlocker = computed(() => {
    const seq = session.display?.seq;
    if (!session.summary || seq === undefined) return 'The session is still loading.';
    if (connection.readOnly) return READ_ONLY_FOLDER;
    if (session.isActive) return RUNNING;
    return hasForkPointAt(session.getLog(), seq) ? null : 'There is no complete message at the playhead yet.';
  });

  const action: ForkAction = {
    blockerFor(message) {
      if (!session.summary) return 'The session is still loading.';
      if (connection.readOnly) return READ_ONLY_FOLDER;
      if (session.isActive) return RUNNING;
      if (message.state === 'streaming')
        return 'This message is still being written: fork once it is complete.';
      return null;
    },
    atMessage(messageId) {
      if (session.isActive || connection.readOnly) return;
      const log = session.getLog();
      const index = log.indexOf(messageId);
      const entry = index === undefined ? null : (log.entries[index] ?? null);
      const number = messageNumberOf(log, messageId);
      if (!entry || number === null || forkPointBlocker(entry)) return;
      open(entry, number);
    },
    atPlayhead() {
      if (session.isActive || connection.readOnly) return;
      const seq = session.display?.seq;
      if (seq === undefined) return;
      const point = forkPointAt(session.getLog(), seq);
      if (point && !forkPointBlocker(point.entry)) open(point.entry, point.atMessage);
    },
    playheadBlocker,
  };
  provide(FORK_ACTION, action);

  function onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'f' && event.key !== 'F') return;
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || branches.draft) return;
    const pointed =
      document.activeElement?.closest<HTMLElement>('[data-message-id]') ??
      document.querySelector<HTMLElement>('[data-testid="transcript"] [data-message-id]:hover');
    const id = pointed?.dataset.messageId;
    event.preventDefault();
    if (id) action.atMessage(id);
    else action.atPlayhead();
  }
  onMounted(() => window.addEventListener('keydown', onKeydown));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKeydown));
  return action;
}

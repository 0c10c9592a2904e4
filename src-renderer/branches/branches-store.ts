import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { Family, ForkResult, ResumeCheck } from '@shared/contract';
import { useBridge } from '../bridge';
import { createFailureReporter } from '../ui/failure';
import { useToastStore } from '../ui/toasts-store';
import { checkForkInput, createDraft, forkInputOf, runBlocker, type ForkDraft } from './fork-draft';

/** Where a fork starts, as the transcript or the replay playhead knows it. */
export interface ForkRequest {
  sessionId: string;
  atMessage: number;
  from: string;
  text: string;
  /** Who spoke in the session (an imported session has no fleet to list its agents). */
  speakers: readonly string[];
}

/**
 * Forks and families: the fork editor's draft and its commands (`branches.fork`), and the family
 * tree of the open session (`branches.family`) with whether it can be resumed
 * (`runs.resumeCheck`), kept fresh as sessions are added and change.
 */
export const useBranchesStore = defineStore('branches', () => {
  const bridge = useBridge();
  const toasts = useToastStore();

  const draft = ref<ForkDraft | null>(null);
  /** The editor is open while its session's fleet and resume check load. */
  const preparing = ref(false);
  const submitting = ref(false);
  /** Readable problems with the draft, or the backend's answer to the last submit. */
  const problems = ref<string[]>([]);
  const editorError = ref<string | null>(null);
  const failEditor = createFailureReporter(editorError);
  let editorGeneration = 0;

  async function openEditor(request: ForkRequest): Promise<void> {
    const mine = ++editorGeneration;
    preparing.value = true;
    problems.value = [];
    editorError.value = null;
    draft.value = createDraft({ ...request, fleet: null, needProvider: [] });
    const [session, check] = await Promise.all([
      bridge.call('sessions.get', { id: request.sessionId }),
      bridge.call('runs.resumeCheck', { sessionId: request.sessionId }),
    ]);
    if (mine !== editorGeneration) return;
    preparing.value = false;
    if (!session.ok) {
      failEditor(session.error, undefined, 'This session cannot be forked');
      return;
    }
    draft.value = createDraft({
      ...request,
      fleet: session.value.fleet,
      needProvider: check.ok ? check.value.unmappedAgents : [],
    });
  }

  function closeEditor(): void {
    editorGeneration += 1;
    draft.value = null;
    preparing.value = false;
    submitting.value = false;
    problems.value = [];
    editorError.value = null;
  }

  /** Creates the fork (and runs it unless `run` is false); resolves with the new session. */
  async function submit(run: boolean): Promise<ForkResult | null> {
    const current = draft.value;
    if (!current || submitting.value) return null;
    const blocker = run ? runBlocker(current) : null;
    if (blocker) {
      problems.value = [blocker];
      return null;
    }
    const input = forkInputOf(current, run);
    const found = checkForkInput(input);
    problems.value = found;
    if (found.length > 0) return null;
    submitting.value = true;
    editorError.value = null;
    try {
      const result = await bridge.call('branches.fork', input);
      if (!result.ok) return failEditor(result.error, null, 'Could not fork');
      const fork = result.value;
      toasts.push(
        `Forked at message ${fork.forkOf.atMessage}: ${fork.label}${fork.running ? '' : ' (not started)'}`,
        'info',
      );
      closeEditor();
      void loadFamily(fork.sessionId);
      return fork;
    } finally {
      submitting.value = false;
    }
  }

  const family = ref<Family | null>(null);
  const familyError = ref<string | null>(null);
  const familyLoading = ref(false);
  const failFamily = createFailureReporter(familyError);
  /** The session whose family is shown (the open session). */
  let familyOf: string | null = null;
  let familyGeneration = 0;

  /** Whether the open session can be continued now, and if not why (see runs.resumeCheck). */
  const resume = ref<ResumeCheck | null>(null);

  async function loadFamily(id: string): Promise<void> {
    familyOf = id;
    const mine = ++familyGeneration;
    familyLoading.value = true;
    const [result, check] = await Promise.all([
      bridge.call('branches.family', { id }),
      bridge.call('runs.resumeCheck', { sessionId: id }),
    ]);
    if (mine !== familyGeneration) return;
    resume.value = check.ok ? check.value : null;
    familyLoading.value = false;
    if (!result.ok) {
      family.value = null;
      return failFamily(result.error, undefined, 'Could not load the branches');
    }
    familyError.value = null;
    family.value = result.value;
  }

  function forgetFamily(): void {
    familyOf = null;
    familyGeneration += 1;
    family.value = null;
    resume.value = null;
    familyError.value = null;
  }

  /** The tree of any session, for the sessions list (not kept). */
  async function fetchFamily(id: string): Promise<Family | string> {
    const result = await bridge.call('branches.family', { id });
    return result.ok ? result.value : result.error.message;
  }

  let refresh: ReturnType<typeof setTimeout> | null = null;
  bridge.onDidReceiveEvent((event) => {
    if (event.channel !== 'store.changed' || event.payload.topic !== 'sessions' || !familyOf) return;
    // A new fork (here or in another process) adds a node; statuses change as branches run.
    if (refresh) return;
    refresh = setTimeout(() => {
      refresh = null;
      if (familyOf) void loadFamily(familyOf);
    }, 500);
  });

  return {
    draft,
    preparing,
    submitting,
    problems,
    editorError,
    openEditor,
    closeEditor,
    submit,
    family,
    resume,
    familyError,
    familyLoading,
    loadFamily,
    forgetFamily,
    fetchFamily,
  };
});

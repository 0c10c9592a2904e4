import { defineStore } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import { MAX_IMPORT_BYTES, type SessionListItem, type SessionSort } from '@shared/contract';
import type { SessionStatus } from '@shared/domain';
import { useBridge } from '../bridge';
import { useTaskStore } from './tasks-store';
import { createFailureReporter } from '../ui/failure';
import { formatBytes } from '../ui/format';
import { useToastStore } from '../ui/toasts-store';

export interface SessionFilters {
  search: string;
  status: SessionStatus | '';
  fleetName: string;
  tag: string;
  /** yyyy-mm-dd, inclusive; empty for no bound. */
  from: string;
  to: string;
}

export const PAGE_SIZE = 25;

/** What an import answered: the new session, or the earlier import of the same file. */
export interface ImportAnswer {
  sessionId: string;
  /** Set when the file was imported before and nothing was written: `sessionId` is that session. */
  earlier: { title: string } | null;
}

const DAY_MS = 86_400_000;

/** The Sessions page: filtered, paged list and the commands on its rows (rename, tag, delete, import). */
export const useSessionListStore = defineStore('sessionList', () => {
  const bridge = useBridge();
  const tasks = useTaskStore();
  const toasts = useToastStore();
  const items = ref<SessionListItem[]>([]);
  const total = ref(0);
  const page = ref(0);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  /** Failures show once, on the page's error line (`error`), never as a toast too. */
  const failQuietly = createFailureReporter(error);
  const fail = failQuietly;
  const filters = reactive<SessionFilters>({
    search: '',
    status: '',
    fleetName: '',
    tag: '',
    from: '',
    to: '',
  });
  /** The list's order: newest, most expensive, most tokens or longest first. */
  const sort = ref<SessionSort>('created');
  /** The running import's task id, under "import". */
  const running = ref<Record<string, string>>({});
  /** The running import's file while the page sends it: bytes sent of its size (browser only). */
  const importUpload = ref<{ fileName: string; sent: number; total: number } | null>(null);
  /** Only the browser's upload can be stopped; the desktop hands the whole text over at once. */
  const canCancelImport = bridge.surface === 'browser';
  let importAbort: AbortController | null = null;
  let generation = 0;

  const pageCount = computed(() => Math.max(1, Math.ceil(total.value / PAGE_SIZE)));
  const filtered = computed(() =>
    Boolean(
      filters.search || filters.status || filters.fleetName || filters.tag || filters.from || filters.to,
    ),
  );

  async function load(): Promise<void> {
    const mine = ++generation;
    loading.value = true;
    const from = filters.from ? Date.parse(`${filters.from}T00:00:00`) : undefined;
    const to = filters.to ? Date.parse(`${filters.to}T00:00:00`) + DAY_MS : undefined;
    const result = await bridge.call('sessions.list', {
      limit: PAGE_SIZE,
      offset: page.value * PAGE_SIZE,
      ...(filters.search.trim() ? { search: filters.search.trim() } : {}),
      ...(filters.status ? { status: [filters.status] } : {}),
      ...(filters.fleetName ? { fleetName: filters.fleetName } : {}),
      ...(filters.tag.trim() ? { tag: filters.tag.trim() } : {}),
      ...(from !== undefined && !Number.isNaN(from) ? { from } : {}),
      ...(to !== undefined && !Number.isNaN(to) ? { to } : {}),
      ...(sort.value !== 'created' ? { sort: sort.value } : {}),
    });
    if (mine !== generation) return;
    loading.value = false;
    loaded.value = true;
    if (!result.ok) return failQuietly(result.error);
    error.value = null;
    items.value = result.value.items;
    total.value = result.value.total;
  }

  /** Orders the list by `by`, largest (or newest) first, from its first page. */
  function sortBy(by: SessionSort): void {
    sort.value = by;
    page.value = 0;
    void load();
  }

  function setPage(next: number): void {
    page.value = Math.max(0, Math.min(next, pageCount.value - 1));
    void load();
  }

  let debounce: ReturnType<typeof setTimeout> | null = null;
  watch(filters, () => {
    page.value = 0;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => void load(), 200);
  });

  function replace(item: SessionListItem): void {
    items.value = items.value.map((existing) => (existing.id === item.id ? item : existing));
  }

  async function rename(id: string, title: string): Promise<boolean> {
    const result = await bridge.call('sessions.rename', { id, title });
    if (!result.ok) return fail(result.error, false, 'Could not rename');
    replace(result.value);
    return true;
  }

  async function setTags(id: string, tags: string[]): Promise<boolean> {
    const result = await bridge.call('sessions.tag', { id, tags });
    if (!result.ok) return fail(result.error, false, 'Could not tag');
    replace(result.value);
    return true;
  }

  async function remove(id: string): Promise<boolean> {
    const result = await bridge.call('sessions.delete', { id });
    if (!result.ok) return fail(result.error, false, 'Could not delete');
    items.value = items.value.filter((item) => item.id !== id);
    total.value = Math.max(0, total.value - 1);
    return true;
  }

  /**
   * Imports a transcript file's text. Answers the new session, or, when the same file was imported
   * before (and `allowDuplicate` is not set), the earlier session with its title and nothing
   * written; null when it failed (errors are shown as they are).
   */
  async function importFile(file: File, allowDuplicate = false): Promise<ImportAnswer | null> {
    if (file.size > MAX_IMPORT_BYTES)
      return fail(
        `${file.name} is ${formatBytes(file.size)}; the app imports files up to ${formatBytes(MAX_IMPORT_BYTES)} (the command line has no limit).`,
        null,
      );
    const taskId = tasks.newTaskId('import');
    running.value = { ...running.value, import: taskId };
    const abort = new AbortController();
    importAbort = abort;
    try {
      const result = await bridge.importFile(
        file,
        { fileName: file.name, taskId, ...(allowDuplicate ? { allowDuplicate } : {}) },
        {
          signal: abort.signal,
          onUpload: (sent, size) => (importUpload.value = { fileName: file.name, sent, total: size }),
        },
      );
      if (!result.ok && abort.signal.aborted) {
        toasts.push(`Import of ${file.name} cancelled.`, 'info');
        return null;
      }
      if (!result.ok) return fail(result.error, null, `Could not import ${file.name}`);
      const { sessionId, messageCount, earlier } = result.value;
      if (earlier) return { sessionId, earlier };
      toasts.push(
        `Imported ${file.name}: ${messageCount} ${messageCount === 1 ? 'message' : 'messages'}.`,
        'info',
      );
      void load();
      return { sessionId, earlier: null };
    } catch (cause) {
      return fail(
        cause instanceof Error ? cause.message : String(cause),
        null,
        `Could not read ${file.name}`,
      );
    } finally {
      const next = { ...running.value };
      delete next.import;
      running.value = next;
      importUpload.value = null;
      importAbort = null;
      tasks.forget(taskId);
    }
  }

  /**
   * Stops the running import: its upload, or the host's import of it, which deletes what it
   * wrote (an import that already finished stays). The import answers null, with a notice.
   */
  function cancelImport(): void {
    importAbort?.abort();
  }

  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  bridge.onDidReceiveEvent((event) => {
    if (event.channel !== 'store.changed' || event.payload.topic !== 'sessions' || !loaded.value) return;
    // Runs change sessions often; one refresh per half second is plenty.
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void load();
    }, 500);
  });
  bridge.onDidRequireResync(() => {
    if (loaded.value) void load();
  });

  return {
    items,
    total,
    page,
    pageCount,
    loading,
    loaded,
    error,
    filters,
    filtered,
    running,
    importUpload,
    canCancelImport,
    cancelImport,
    load,
    sort,
    sortBy,
    setPage,
    rename,
    setTags,
    remove,
    importFile,
  };
});

export { formatBytes };

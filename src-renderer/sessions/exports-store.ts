import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { ExportFormat } from '@shared/contract';
import { useBridge } from '../bridge';
import { EXPORT_FORMAT_LABELS, formatBytes } from '../ui/format';
import { fraction, useTaskStore } from './tasks-store';
import { useToastStore } from '../ui/toasts-store';

/** Where the web host serves the files `sessions.export` wrote (see server/web-host.ts). */
export const EXPORTS_PATH = '/exports/';

/** Starts a download of a same-origin URL (the launch cookie goes with it) without leaving the page. */
function startDownload(href: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * Exports sessions. Each export has one toast that shows its progress and then its outcome; in
 * the browser the file downloads directly, on the desktop it is saved in the data folder.
 */
export const useExportStore = defineStore('exports', () => {
  const bridge = useBridge();
  const tasks = useTaskStore();
  const toasts = useToastStore();
  /** Formats being exported, by session id: one export per session at a time. */
  const running = ref<Record<string, ExportFormat>>({});

  async function exportSession(id: string, title: string, format: ExportFormat): Promise<boolean> {
    if (running.value[id]) return false;
    running.value = { ...running.value, [id]: format };
    const label = EXPORT_FORMAT_LABELS[format];
    const text = `Exporting “${title}” as ${label}…`;
    const toast = toasts.progress(text);
    const taskId = tasks.newTaskId(`export-${format}`);
    const stopFollowing = watch(
      () => tasks.tasks[taskId],
      (task) => toast.update(text, fraction(task)),
    );
    try {
      const result = await bridge.call('sessions.export', { id, format, taskId });
      if (!result.ok) {
        toast.settle(`Could not export “${title}”: ${result.error.message}`, 'error');
        return false;
      }
      const { fileName, bytes, path } = result.value;
      if (bridge.surface === 'browser') {
        startDownload(`${EXPORTS_PATH}${encodeURIComponent(fileName)}`, fileName);
        toast.settle(`Downloaded “${title}” as ${label} (${formatBytes(bytes)}).`, 'info');
      } else {
        toast.settle(`Saved ${fileName} (${formatBytes(bytes)}) to ${path}.`, 'info', 12_000);
      }
      return true;
    } finally {
      stopFollowing();
      tasks.forget(taskId);
      const next = { ...running.value };
      delete next[id];
      running.value = next;
    }
  }

  return { running, exportSession };
});

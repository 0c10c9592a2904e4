import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { EventPayload } from '@shared/contract';
import { useBridge } from '../bridge';

export type TaskProgress = EventPayload<'task.progress'>;

/** Progress of long tasks (export, import) by task id, from `task.progress` events. */
export const useTaskStore = defineStore('tasks', () => {
  const bridge = useBridge();
  const tasks = ref<Record<string, TaskProgress>>({});
  let counter = 0;

  /** A fresh task id to pass to a command, so its progress can be followed. */
  function newTaskId(prefix: string): string {
    counter += 1;
    return `${prefix}-${Date.now().toString(36)}-${counter}`;
  }

  function forget(taskId: string): void {
    const next = { ...tasks.value };
    delete next[taskId];
    tasks.value = next;
  }

  bridge.onDidReceiveEvent((event) => {
    if (event.channel !== 'task.progress') return;
    tasks.value = { ...tasks.value, [event.payload.taskId]: event.payload };
  });

  return { tasks, newTaskId, forget };
});

/** 0..1 when the total is known, null otherwise. */
export function fraction(task: TaskProgress | undefined): number | null {
  if (!task || task.total === null || task.total <= 0) return null;
  return Math.min(1, task.done / task.total);
}

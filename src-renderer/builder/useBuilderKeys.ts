import { onBeforeUnmount, onMounted } from 'vue';
import { useBuilderStore } from './builder-store';

function typing(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  return (
    !!element && (element.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName))
  );
}

/** Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z (or Y) redo, Ctrl/Cmd+C / V copy and paste agents, Delete. */
export function useBuilderKeys(): void {
  const store = useBuilderStore();
  const onKeydown = (event: KeyboardEvent) => {
    if (typing(event.target)) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (mod && key === 'z') {
      event.preventDefault();
      if (event.shiftKey) store.redo();
      else store.undo();
    } else if (mod && key === 'y') {
      event.preventDefault();
      store.redo();
    } else if (mod && key === 'c') {
      store.copySelected();
    } else if (mod && key === 'v') {
      event.preventDefault();
      store.paste();
    } else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) {
      event.preventDefault();
      store.removeSelected();
    }
  };
  onMounted(() => window.addEventListener('keydown', onKeydown));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKeydown));
}

import { onBeforeUnmount, onMounted } from 'vue';
import type { Player } from '../session/usePlayer';
import { useSessionStore } from '../session/session-store';

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable;
}

/**
 * Keyboard for the session view. Replay: Space play/pause, ←/→ previous/next message
 * (with Shift: event), Home/End. Run: P pause/resume, N step one round, X stop.
 */
export function useSessionKeys(player: Player): void {
  const store = useSessionStore();
  function onKeydown(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const handled = (() => {
      switch (event.key) {
        case ' ':
          player.toggle();
          return true;
        case 'ArrowLeft':
          if (event.shiftKey) player.stepEvent(-1);
          else player.stepMessage(-1);
          return true;
        case 'ArrowRight':
          if (event.shiftKey) player.stepEvent(1);
          else player.stepMessage(1);
          return true;
        case 'Home':
          player.home();
          return true;
        case 'End':
          player.end();
          return true;
        case 'p':
        case 'P':
          if (!store.isActive) return false;
          void store.control(store.display?.headStatus === 'paused' ? 'resume' : 'pause');
          return true;
        case 'n':
        case 'N':
          if (!store.isActive) return false;
          void store.control('step');
          return true;
        case 'x':
        case 'X':
          if (!store.isActive) return false;
          void store.control('stop');
          return true;
        default:
          return false;
      }
    })();
    if (handled) event.preventDefault();
  }
  onMounted(() => window.addEventListener('keydown', onKeydown));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKeydown));
}

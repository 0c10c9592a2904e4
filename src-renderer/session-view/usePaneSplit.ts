import { ref, watch, type Ref } from 'vue';

const SHARE_KEY = 'fleetscope.sessionSplit';
const MAXIMISED_KEY = 'fleetscope.sessionMaximised';
/** The graph pane's share of the width: default, least and most (each pane keeps its minimum). */
export const DEFAULT_SHARE = 0.55;
export const MIN_SHARE = 0.2;
export const MAX_SHARE = 0.8;
/** How far one arrow key moves the split. */
const KEY_STEP = 0.04;

const clamp = (share: number) => Math.min(MAX_SHARE, Math.max(MIN_SHARE, share));

function readShare(): number {
  try {
    const value = Number(localStorage.getItem(SHARE_KEY));
    return Number.isFinite(value) && value > 0 ? clamp(value) : DEFAULT_SHARE;
  } catch {
    return DEFAULT_SHARE;
  }
}

function remember(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage disabled: the choice lasts for this view only.
  }
}

/**
 * The session view's split between the graph (or lanes) and the transcript: a share of the width
 * dragged on the handle or moved with the arrow keys, and a maximised graph pane (button or M).
 * Both are remembered across sessions and launches.
 */
export function usePaneSplit(panes: Ref<HTMLElement | null>) {
  const share = ref(readShare());
  const maximised = ref(localStorage.getItem(MAXIMISED_KEY) === 'on');
  const dragging = ref(false);
  watch(share, (value) => remember(SHARE_KEY, value.toFixed(3)));
  watch(maximised, (value) => remember(MAXIMISED_KEY, value ? 'on' : 'off'));

  function startDrag(event: PointerEvent): void {
    const element = panes.value;
    if (!element || event.button !== 0) return;
    event.preventDefault();
    const handle = event.currentTarget as HTMLElement;
    handle.setPointerCapture(event.pointerId);
    dragging.value = true;
    const box = element.getBoundingClientRect();
    const move = (moved: PointerEvent) => {
      share.value = clamp((moved.clientX - box.left) / box.width);
    };
    const end = () => {
      dragging.value = false;
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  }

  function onHandleKey(event: KeyboardEvent): void {
    const step = event.key === 'ArrowLeft' ? -KEY_STEP : event.key === 'ArrowRight' ? KEY_STEP : 0;
    if (event.key === 'Home' || event.key === 'End' || event.key === 'Enter') {
      event.preventDefault();
      event.stopPropagation();
      share.value = DEFAULT_SHARE;
      return;
    }
    if (step === 0) return;
    event.preventDefault();
    // The replay's own arrow keys must not move the playhead as well.
    event.stopPropagation();
    share.value = clamp(share.value + step);
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'm' && event.key !== 'M') return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (
      target instanceof HTMLElement &&
      (target.closest('input, textarea, select') || target.isContentEditable)
    )
      return;
    event.preventDefault();
    maximised.value = !maximised.value;
  }

  return { share, maximised, dragging, startDrag, onHandleKey, onKeydown };
}

/**
 * In-page probes (passed to `page.evaluate`, so everything they use lives inside the installer)
 * for how soon a freshly opened session's replay controls work, and how soon the sessions page
 * is interactive after a navigation. Times are the page's own `performance.now()`, milliseconds.
 */
export type Control = 'step' | 'play' | 'turn';

export interface ControlProbes {
  /**
   * Opens `#/sessions/<id>` and uses one control as soon as it is there, retrying until it moves
   * the playhead: `step` clicks "previous message" (or "next" at the start), `play` goes to the start and plays, `turn`
   * picks an agent's second turn in the turn picker. Milliseconds from the navigation until the
   * playhead moved (and the next frame). A session view keeps its playhead between opens.
   */
  controlWorks(args: { id: string; control: Control; timeoutMs: number }): Promise<number>;
}

/** Registered before the app loads (addInitScript): every long task of the page, kept in order. */
export const LONG_TASK_RECORDER = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
`;

/**
 * In a page just navigated to the app: waits until the sessions list shows rows, then for the
 * next frame; interactive is that frame or the end of the last long task by then, whichever is
 * later (the time origin is the navigation's start). Also returns the long tasks' total.
 */
export interface InteractiveFigures {
  /** Rows painted and no long task left. */
  interactive: number;
  /** The document's DOMContentLoaded handlers done (the first route's modules ran). */
  domContentLoaded: number;
  /** The sessions list first held rows. */
  rowsShown: number;
  rows: number;
  longTaskMs: number;
}

export function sessionsPageInteractive(): Promise<InteractiveFigures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const check = () => {
      const rows = document.querySelectorAll('[data-testid="session-row"]').length;
      if (rows > 0) {
        const rowsShown = performance.now();
        const navigation = performance.getEntriesByType('navigation')[0] as
          PerformanceNavigationTiming | undefined;
        requestAnimationFrame(() =>
          setTimeout(() => {
            const frame = performance.now();
            // Let a long task that was running at the frame be reported.
            setTimeout(() => {
              const tasks = (window as unknown as { __longTasks: Array<{ start: number; duration: number }> })
                .__longTasks;
              const before = tasks.filter((task) => task.start <= frame);
              const lastEnd = Math.max(0, ...before.map((task) => task.start + task.duration));
              resolve({
                interactive: Math.max(frame, lastEnd),
                domContentLoaded: navigation?.domContentLoadedEventEnd ?? NaN,
                rowsShown,
                rows,
                longTaskMs: before.reduce((sum, task) => sum + task.duration, 0),
              });
            }, 100);
          }, 0),
        );
        return;
      }
      if (performance.now() - started > 30_000) reject(new Error('the sessions list never showed'));
      else setTimeout(check, 5);
    };
    check();
  });
}

/** Puts the probes on `window.fleetscopeControls`. */
export function installControlProbes(): void {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const nextFrame = () =>
    new Promise<number>((resolve) =>
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)),
    );
  const position = () => document.querySelector<HTMLElement>('[data-testid="replay-position"]');
  const seqNow = () => Number(position()?.dataset.seq ?? NaN);
  const button = (name: string) => document.querySelector<HTMLButtonElement>(`[data-testid="${name}"]`);

  /** Polls `attempt` every 20 ms until it returns true; rejects after `timeoutMs`. */
  async function until(attempt: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
    const started = performance.now();
    for (;;) {
      if (await attempt()) return;
      if (performance.now() - started > timeoutMs) {
        const play = button('replay-play')?.getAttribute('aria-label');
        throw new Error(
          `the control never worked (at ${position()?.dataset.seq} of ${position()?.dataset.lastSeq}, play button "${play}", ${window.location.hash})`,
        );
      }
      await sleep(20);
    }
  }

  /** Changes a select as a person does (value, then a change event). */
  function choose(select: HTMLSelectElement, value: string): void {
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  }

  const attempts: Record<Control, (timeoutMs: number) => Promise<void>> = {
    step: (timeoutMs) =>
      until(async () => {
        const before = seqNow();
        const last = Number(position()?.dataset.lastSeq ?? 0);
        // Back one message, or forward from the very start.
        const step = button(before > 0 ? 'replay-prev' : 'replay-next');
        if (!step || !(last > 0)) return false;
        step.click();
        // A step past what the view holds asks the store first: watched frame by frame for up to
        // 300 ms (as play is), so the figure is when the playhead moved, not whether it moved
        // within the same task.
        const clicked = performance.now();
        while (seqNow() === before && performance.now() - clicked < 300) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        return seqNow() !== before;
      }, timeoutMs),
    play: (timeoutMs) =>
      until(async () => {
        const home = button('replay-home');
        const play = button('replay-play');
        if (!home || !play || !(Number(position()?.dataset.lastSeq ?? 0) > 0)) return false;
        home.click();
        await sleep(0);
        const atHome = seqNow();
        if (!play.getAttribute('aria-label')?.startsWith('Pause')) play.click();
        // Watched frame by frame for up to 300 ms, so the figure is when the playhead moved.
        const clicked = performance.now();
        let moved = false;
        while (!moved && performance.now() - clicked < 300) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          moved = seqNow() > atHome;
        }
        // Paused again so the next attempt (or the next open) starts from a still playhead.
        if (play.getAttribute('aria-label')?.startsWith('Pause')) play.click();
        return moved;
      }, timeoutMs),
    turn: (timeoutMs) =>
      until(async () => {
        const agent = document.querySelector<HTMLSelectElement>('[data-testid="turn-agent"]');
        if (!agent || agent.options.length < 2) return false;
        choose(agent, agent.options[1]!.value);
        await sleep(0);
        const picker = document.querySelector<HTMLSelectElement>('[data-testid="turn-picker"]');
        if (!picker || picker.options.length < 3) return false;
        const target = picker.options[2]!.value;
        choose(picker, target);
        await sleep(0);
        return String(seqNow()) === target;
      }, timeoutMs),
  };

  async function controlWorks(args: { id: string; control: Control; timeoutMs: number }): Promise<number> {
    const start = performance.now();
    window.location.hash = `#/sessions/${encodeURIComponent(args.id)}`;
    await attempts[args.control](args.timeoutMs);
    return (await nextFrame()) - start;
  }

  const probes: ControlProbes = { controlWorks };
  (window as unknown as { fleetscopeControls: ControlProbes }).fleetscopeControls = probes;
}

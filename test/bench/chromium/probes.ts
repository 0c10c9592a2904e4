/**
 * Code that runs inside the page (passed to `page.evaluate`): every timing is taken with the
 * page's own `performance.now()`, so no Playwright round trip is counted. Milliseconds throughout.
 *
 * `installProbes` is serialized by Playwright, so everything it uses lives inside it.
 */
export interface OpenFigures {
  dom: number;
  frame: number;
}
export interface SeekFigures {
  dom: number[];
  frame: number[];
}
export interface FrameFigures {
  fps: number;
  worstGap: number;
  p95Gap: number;
  longestTask: number;
  longTasks: number;
  streamingNodes: number;
}
/** Opening a comparison: its summary line, its first aligned pair, the next frame (painted). */
export interface CompareFigures {
  summary: number;
  rows: number;
  frame: number;
}
/** Which view of the session an open waits for: the graph (default) or the lanes. */
export type Lens = 'graph' | 'lanes';
export interface Probes {
  openSession(args: { id: string; empty: boolean; lens?: Lens }): Promise<OpenFigures>;
  leaveSession(): Promise<void>;
  seekRandomly(args: { count: number }): Promise<SeekFigures>;
  watchFrames(args: { ms: number }): Promise<FrameFigures>;
  openCompare(args: { a: string; b: string }): Promise<CompareFigures>;
  leaveCompare(): Promise<void>;
}

/** Puts the probes on `window.fleetscopeBench`. */
export function installProbes(): void {
  /** Resolves once `ready()` holds, checked on every DOM mutation; rejects after `timeoutMs`. */
  function until(ready: () => boolean, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      if (ready()) return resolve(performance.now());
      const observer = new MutationObserver(() => {
        if (!ready()) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(performance.now());
      });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error('timed out waiting for the page'));
      }, timeoutMs);
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
  }

  const nextFrame = () =>
    new Promise<number>((resolve) =>
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)),
    );

  /**
   * Opens `#/sessions/<id>` in the running app and times it until the graph has nodes (with
   * `lens: 'lanes'`, until the lanes have rows) and the transcript shows a message (or, for an
   * empty session, its empty line). `dom` is when the DOM first holds both; `frame` is after the
   * next animation frame (painted). The lens shown is the one the page last chose.
   */
  async function openSession(args: { id: string; empty: boolean; lens?: Lens }): Promise<OpenFigures> {
    const lensDrawn = (view: Element) =>
      args.lens === 'lanes'
        ? !!view.querySelector('[data-testid="lanes"]') &&
          (args.empty || !!view.querySelector('[data-testid="lane-row"]'))
        : // The graph is laid out hidden ("measuring") first: drawn means shown, phase ready.
          !!view.querySelector('[data-testid="agent-graph"][data-phase="ready"] [data-testid="agent-node"]');
    const shown = () => {
      const view = document.querySelector(`[data-testid="session-view"][data-session-id="${args.id}"]`);
      if (!view || !lensDrawn(view)) return false;
      const transcript = view.querySelector('[data-testid="transcript-scroller"]');
      return args.empty
        ? (transcript?.textContent ?? '').includes('No messages')
        : !!transcript?.querySelector('[data-testid="message"]');
    };
    const start = performance.now();
    window.location.hash = `#/sessions/${encodeURIComponent(args.id)}`;
    const dom = await until(shown, 30_000);
    const frame = await nextFrame();
    return { dom: dom - start, frame: frame - start };
  }

  /** Leaves the session view for the list and waits until it is gone. */
  async function leaveSession(): Promise<void> {
    window.location.hash = '#/sessions';
    await until(() => !document.querySelector('[data-testid="session-view"]'), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  /**
   * Drags the replay scrubber to `count` random positions (an `input` event, as a drag does) and
   * times each until the position label shows the new seq (`dom`) and until the next frame.
   */
  async function seekRandomly(args: { count: number }): Promise<SeekFigures> {
    const scrubber = document.querySelector<HTMLInputElement>('[data-testid="replay-scrubber"]');
    const label = document.querySelector<HTMLElement>('[data-testid="replay-position"]');
    if (!scrubber || !label) throw new Error('no replay bar');
    const last = Number(label.dataset.lastSeq);
    const dom: number[] = [];
    const frame: number[] = [];
    for (let i = 0; i < args.count; i++) {
      const target = 1 + Math.floor(Math.random() * (last - 1));
      if (String(target) === label.dataset.seq) continue;
      const start = performance.now();
      scrubber.value = String(target);
      scrubber.dispatchEvent(new Event('input', { bubbles: true }));
      const shown = await until(() => label.dataset.seq === String(target), 10_000);
      const painted = await nextFrame();
      dom.push(shown - start);
      frame.push(painted - start);
    }
    return { dom, frame };
  }

  /** Frames per second, frame-to-frame gaps and long tasks over `ms` of whatever the page is doing. */
  async function watchFrames(args: { ms: number }): Promise<FrameFigures> {
    const tasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
    const gaps: number[] = [];
    let streamingNodes = 0;
    await new Promise<void>((resolve) => {
      const start = performance.now();
      let last = start;
      const tick = (now: number) => {
        gaps.push(now - last);
        last = now;
        streamingNodes = Math.max(
          streamingNodes,
          document.querySelectorAll(
            '[data-testid="agent-node"][data-status="streaming"], [data-testid="lane"][data-status="streaming"]',
          ).length,
        );
        if (now - start < args.ms) requestAnimationFrame(tick);
        else resolve();
      };
      requestAnimationFrame((now) => {
        last = now;
        requestAnimationFrame(tick);
      });
    });
    // Entries are delivered to the callback asynchronously: take those still queued.
    for (const entry of observer.takeRecords()) tasks.push(entry.duration);
    observer.disconnect();
    const sorted = [...gaps].sort((a, b) => a - b);
    const total = gaps.reduce((sum, gap) => sum + gap, 0);
    return {
      fps: (gaps.length / total) * 1000,
      worstGap: sorted[sorted.length - 1] ?? 0,
      p95Gap: sorted[Math.floor(sorted.length * 0.95)] ?? 0,
      longestTask: Math.max(0, ...tasks),
      longTasks: tasks.length,
      streamingNodes,
    };
  }
  /**
   * Opens `#/compare/<a>/<b>` and times it until the summary line shows (`summary`), until the
   * first aligned pair holds its messages (`rows`), and until the next animation frame (`frame`).
   */
  async function openCompare(args: { a: string; b: string }): Promise<CompareFigures> {
    const view = () =>
      document.querySelector(`[data-testid="compare-view"][data-a="${args.a}"][data-b="${args.b}"]`);
    const start = performance.now();
    window.location.hash = `#/compare/${encodeURIComponent(args.a)}/${encodeURIComponent(args.b)}`;
    const summary = await until(() => !!view()?.querySelector('[data-testid="compare-relation"]'), 30_000);
    const rows = await until(
      () => !!view()?.querySelector('[data-testid="compare-pair"]:not([data-state="loading"])'),
      30_000,
    );
    const frame = await nextFrame();
    return { summary: summary - start, rows: rows - start, frame: frame - start };
  }

  /** Leaves a comparison for the sessions list and waits until it is gone. */
  async function leaveCompare(): Promise<void> {
    window.location.hash = '#/sessions';
    await until(() => !document.querySelector('[data-testid="compare-view"]'), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const probes: Probes = {
    openSession,
    leaveSession,
    seekRandomly,
    watchFrames,
    openCompare,
    leaveCompare,
  };
  (window as unknown as { fleetscopeBench: Probes }).fleetscopeBench = probes;
}

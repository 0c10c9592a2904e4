import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, Result } from '@shared/contract';
import { setBridge } from '../../../src-renderer/bridge/current';
import ToastHost from '../../../src-renderer/ui/ToastHost.vue';
import { useToastStore } from '../../../src-renderer/ui/toasts-store';
import { useExportStore } from '../../../src-renderer/sessions/exports-store';
import { createFakeBridge } from '../../helpers/fake-bridge';

function bridgeAnswering(answer: (channel: ChannelName, input: unknown) => Result<unknown>) {
  const fake = createFakeBridge(answer);
  setBridge(fake.bridge);
  return fake;
}

describe('the toast stack', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    bridgeAnswering(() => ({ ok: false, error: { code: 'unknown-channel', message: 'none' } }));
  });
  afterEach(() => vi.useRealTimers());

  it('shows one card with the newest text and a count of the others, which open on demand', async () => {
    const toasts = useToastStore();
    const host = mount(ToastHost);
    toasts.push('First thing', 'info');
    toasts.push('Second thing', 'error');
    toasts.push('Third thing', 'info');
    await flushPromises();
    expect(host.findAll('[data-testid="toast"]')).toHaveLength(1);
    expect(host.get('[data-testid="toast-text"]').text()).toBe('Third thing');
    expect(host.get('[data-testid="toast-count"]').text()).toContain('2 more');
    expect(host.find('[data-testid="toast-list"]').exists()).toBe(false);

    await host.get('[data-testid="toast-count"]').trigger('click');
    const older = host.findAll('[data-testid="toast-older"]').map((item) => item.text());
    expect(older).toEqual([expect.stringContaining('Second thing'), expect.stringContaining('First thing')]);
    expect(host.get('[data-testid="toast-count"]').attributes('aria-expanded')).toBe('true');

    await host.get('[data-testid="toast-dismiss"]').trigger('click');
    expect(host.find('[data-testid="toast"]').exists()).toBe(false);
  });

  it('lets a single notice go by itself after its time, and keeps a running task until it settles', async () => {
    vi.useFakeTimers();
    const toasts = useToastStore();
    toasts.push('Short notice', 'info', 1000);
    const task = toasts.progress('Exporting “Debate” as Markdown…');
    task.update('Exporting “Debate” as Markdown…', 0.5);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(toasts.toasts.map((toast) => toast.text)).toEqual(['Exporting “Debate” as Markdown…']);
    expect(toasts.newest?.fraction).toBe(0.5);
    // Dismissing everything leaves a task that is still running.
    toasts.dismissAll();
    expect(toasts.count).toBe(1);
    task.settle('Downloaded debate.md (2.0 KB).', 'info');
    expect(toasts.newest).toMatchObject({ kind: 'info', text: 'Downloaded debate.md (2.0 KB).' });
    await vi.advanceTimersByTimeAsync(7000);
    expect(toasts.count).toBe(0);
  });

  it('moves a settled task to the top of the stack: its outcome is the news', () => {
    const toasts = useToastStore();
    const task = toasts.progress('Exporting…');
    toasts.push('Something else', 'info');
    task.settle('Could not export “Debate”: disk full', 'error');
    expect(toasts.newest).toMatchObject({ kind: 'error', text: 'Could not export “Debate”: disk full' });
    expect(toasts.count).toBe(2);
  });

  it('keeps at most twenty notices, dropping the oldest but never a running task', () => {
    const toasts = useToastStore();
    toasts.progress('Importing a big file…');
    for (let index = 0; index < 30; index++) toasts.push(`notice ${index}`, 'info', 0);
    expect(toasts.count).toBe(20);
    expect(toasts.toasts[0]?.text).toBe('Importing a big file…');
    expect(toasts.newest?.text).toBe('notice 29');
  });
});

describe('exporting from the browser', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows one progress toast, then downloads the file directly and says so, with no server path', async () => {
    let resolveExport: (value: Result<unknown>) => void = () => undefined;
    const fake = createFakeBridge(() => ({ ok: true, value: {} }));
    const pending = new Promise<Result<unknown>>((resolve) => (resolveExport = resolve));
    const call = fake.bridge.call.bind(fake.bridge);
    fake.bridge.call = (async (channel: ChannelName, input: never) => {
      if (channel !== 'sessions.export') return call(channel, input);
      fake.calls.push({ channel, input });
      return pending;
    }) as typeof fake.bridge.call;
    setBridge(fake.bridge);
    const clicked: Array<{ href: string; download: string }> = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
    });
    const toasts = useToastStore();
    const exports = useExportStore();

    const done = exports.exportSession('s1', 'Debate', 'otlp');
    await flushPromises();
    expect(toasts.toasts).toHaveLength(1);
    expect(toasts.newest).toMatchObject({
      kind: 'progress',
      text: 'Exporting “Debate” as OpenTelemetry JSON…',
    });
    expect(exports.running).toEqual({ s1: 'otlp' });
    // A second request for the same session while one runs starts nothing.
    await expect(exports.exportSession('s1', 'Debate', 'md')).resolves.toBe(false);
    const input = fake.calls.find((entry) => entry.channel === 'sessions.export')?.input as {
      taskId: string;
    };
    fake.emit({
      seq: 1,
      channel: 'task.progress',
      payload: { taskId: input.taskId, label: 'x', done: 3, total: 4, finished: false },
    });
    await flushPromises();
    expect(toasts.newest?.fraction).toBe(0.75);

    resolveExport({
      ok: true,
      value: {
        path: '/home/someone/.fleetscope/exports/debate 1.json',
        bytes: 2048,
        fileName: 'debate 1.json',
      },
    });
    await expect(done).resolves.toBe(true);
    expect(clicked).toEqual([{ href: '/exports/debate%201.json', download: 'debate 1.json' }]);
    expect(toasts.toasts).toHaveLength(1);
    expect(toasts.newest).toMatchObject({
      kind: 'info',
      text: 'Downloaded “Debate” as OpenTelemetry JSON (2.0 KB).',
    });
    expect(toasts.newest?.text).not.toContain('/home/someone');
    expect(exports.running).toEqual({});
    click.mockRestore();
  });

  it('turns the same toast into the error when the export fails', async () => {
    const fake = bridgeAnswering(() => ({
      ok: false,
      error: { code: 'not-found', message: 'No session with id s9.' },
    }));
    const toasts = useToastStore();
    await expect(useExportStore().exportSession('s9', 'Gone', 'md')).resolves.toBe(false);
    expect(fake.calls.map((entry) => entry.channel)).toEqual(['sessions.export']);
    expect(toasts.toasts).toHaveLength(1);
    expect(toasts.newest).toMatchObject({
      kind: 'error',
      text: 'Could not export “Gone”: No session with id s9.',
    });
  });
});

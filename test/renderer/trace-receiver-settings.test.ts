import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { TraceReceiverPatch, TraceReceiverStatus } from '@shared/contract';
import TraceReceiverSettings from '../../src-renderer/settings/TraceReceiverSettings.vue';
import { setBridge } from '../../src-renderer/bridge/current';
import { createFakeBridge } from '../helpers/fake-bridge';

const LINES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318',
  'OTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=abc',
];

function backend(start: Partial<TraceReceiverStatus> = {}) {
  let status: TraceReceiverStatus = {
    mode: 'own-port',
    enabled: true,
    listening: true,
    configuredPort: 4318,
    endQuietSeconds: 3,
    port: 4318,
    endpoint: 'http://127.0.0.1:4318',
    envLines: LINES,
    error: null,
    stats: {
      spansReceived: 12,
      spansRejected: 1,
      sessionsStarted: 2,
      liveSessions: 1,
      spansWaiting: 0,
      spansOutsideSessions: 0,
    },
    ...start,
  };
  const fake = createFakeBridge((channel, input) => {
    if (channel === 'traces.receiver') return { ok: true, value: status };
    if (channel === 'traces.configure') {
      const patch = input as TraceReceiverPatch;
      const enabled = patch.enabled ?? status.enabled;
      const port = patch.port ?? status.configuredPort;
      status = {
        ...status,
        endQuietSeconds: patch.endQuietSeconds ?? status.endQuietSeconds,
        enabled,
        configuredPort: port,
        listening: enabled,
        port: enabled ? port : null,
        endpoint: enabled ? `http://127.0.0.1:${port}` : null,
        envLines: enabled ? [`OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${port}`, LINES[1] as string] : [],
      };
      return { ok: true, value: status };
    }
    return { ok: false, error: { code: 'unknown-channel', message: channel } };
  });
  setBridge(fake.bridge);
  return fake;
}

describe('Settings › OpenTelemetry traces', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('shows the two lines to paste and copies them', async () => {
    backend();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const view = mount(TraceReceiverSettings);
    await flushPromises();
    expect(view.get('[data-testid="trace-env-lines"]').text()).toBe(LINES.join('\n'));
    expect(view.get('[data-testid="trace-stats"]').text()).toBe(
      '12 spans received · 2 sessions · 1 live · 1 spans rejected',
    );
    await view.get('[data-testid="trace-copy"]').trigger('click');
    await flushPromises();
    expect(writeText).toHaveBeenCalledWith(LINES.join('\n'));
    expect(view.get('[data-testid="trace-copy"]').text()).toBe('Copied');
  });

  it('turns the receiver off and moves it to another port through the bridge', async () => {
    const fake = backend();
    const view = mount(TraceReceiverSettings);
    await flushPromises();
    await view.get('[data-testid="trace-port"]').setValue('4400');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'traces.configure', input: { port: 4400 } });
    expect(view.get('[data-testid="trace-env-lines"]').text()).toContain('http://127.0.0.1:4400');
    await view.get('[data-testid="trace-port"]').setValue('70000');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).toEqual({ port: 4400 });
    expect(view.get('[role="alert"]').text()).toBe('Enter a port from 1 to 65535.');
    await view.get('[data-testid="trace-enabled"]').setValue(false);
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'traces.configure', input: { enabled: false } });
    expect(view.find('[data-testid="trace-env-lines"]').exists()).toBe(false);
  });

  it('sets the quiet period that ends a traced session, refusing a value out of range', async () => {
    const fake = backend();
    const view = mount(TraceReceiverSettings);
    await flushPromises();
    const field = view.get<HTMLInputElement>('[data-testid="trace-end-quiet"]');
    expect(field.element.value).toBe('3');
    await field.setValue('8');
    await flushPromises();
    expect(fake.calls.at(-1)).toEqual({ channel: 'traces.configure', input: { endQuietSeconds: 8 } });
    expect(field.element.value).toBe('8');
    await field.setValue('0');
    await flushPromises();
    expect(fake.calls.at(-1)?.input).toEqual({ endQuietSeconds: 8 });
    expect(view.get('[role="alert"]').text()).toBe('Enter whole seconds from 1 to 30.');
  });

  it('shows why the receiver does not listen, and hides the port under fleetscope serve', async () => {
    backend({
      listening: false,
      port: null,
      endpoint: null,
      envLines: [],
      error: 'Port 4318 is in use (another collector or app?). Choose another port.',
    });
    const view = mount(TraceReceiverSettings);
    await flushPromises();
    expect(view.get('[role="alert"]').text()).toContain('Port 4318 is in use');
    setActivePinia(createPinia());
    backend({ mode: 'web-host', port: 5173, configuredPort: 4318 });
    const served = mount(TraceReceiverSettings);
    await flushPromises();
    expect(served.find('[data-testid="trace-port"]').exists()).toBe(false);
    expect(served.find('[data-testid="trace-env-lines"]').exists()).toBe(true);
  });

  it('is absent where traces cannot arrive (mode none)', async () => {
    backend({ mode: 'none', listening: false, port: null, endpoint: null, envLines: [] });
    const view = mount(TraceReceiverSettings);
    await flushPromises();
    expect(view.find('[data-testid="trace-receiver"]').exists()).toBe(false);
  });
});

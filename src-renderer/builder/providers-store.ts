import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { KeyStorage, ProviderId, ProviderInfo, ProviderTestResult, ToolInfo } from '@shared/contract';
import type { ProviderRef } from '@shared/domain';
import { useBridge } from '../bridge';
import { createFailureReporter } from '../ui/failure';
import { workingProviderId } from './templates';

/** Providers (presets, saved settings, whether a key is set), their models, and the tool registry. */
export const useProvidersStore = defineStore('providers', () => {
  const bridge = useBridge();
  const providers = ref<ProviderInfo[]>([]);
  const keyStorage = ref<KeyStorage | null>(null);
  const tools = ref<ToolInfo[]>([]);
  const tests = ref<Partial<Record<ProviderId, ProviderTestResult & { running?: boolean }>>>({});
  const error = ref<string | null>(null);
  const fail = createFailureReporter(error);

  async function load(): Promise<void> {
    const [list, toolList] = await Promise.all([
      bridge.call('providers.list', {}),
      bridge.call('tools.list', {}),
    ]);
    if (list.ok) {
      providers.value = list.value.providers;
      keyStorage.value = list.value.keyStorage;
    } else fail(list.error);
    if (toolList.ok) tools.value = toolList.value;
  }

  function replace(info: ProviderInfo): void {
    providers.value = providers.value.map((provider) => (provider.id === info.id ? info : provider));
  }

  async function save(input: {
    id: ProviderId;
    baseUrl: string;
    defaultModel: string;
    apiKeyEnv: string | null;
  }): Promise<boolean> {
    const result = await bridge.call('providers.save', input);
    if (!result.ok) return fail(result.error, false);
    replace(result.value);
    error.value = null;
    return true;
  }

  async function setKey(id: ProviderId, key: string): Promise<boolean> {
    const result = await bridge.call('providers.setKey', { id, key });
    if (!result.ok) return fail(result.error, false);
    replace(result.value);
    error.value = null;
    return true;
  }

  async function test(id: ProviderId, baseUrl?: string): Promise<ProviderTestResult | null> {
    tests.value = {
      ...tests.value,
      [id]: { ok: false, models: [], message: 'Testing…', elapsedMs: 0, running: true },
    };
    const result = await bridge.call('providers.test', baseUrl ? { id, baseUrl } : { id });
    const value = result.ok
      ? result.value
      : { ok: false, models: [], message: result.error.message, elapsedMs: 0 };
    tests.value = { ...tests.value, [id]: value };
    return value;
  }

  /** Models the provider listed at its last successful test. */
  function modelsOf(id: string): string[] {
    return tests.value[id as ProviderId]?.models ?? [];
  }

  function find(id: string): ProviderInfo | undefined {
    return providers.value.find((provider) => provider.id === id);
  }

  /** The reference a new agent gets for a provider: its URL, key variable and default model. */
  function refFor(id: string, model?: string): ProviderRef {
    const info = find(id);
    if (!info || info.id === 'scripted') return { id, model: model ?? info?.defaultModel ?? 'scripted' };
    return {
      id: info.id,
      baseUrl: info.baseUrl,
      ...(info.apiKeyEnv ? { apiKeyEnv: info.apiKeyEnv } : {}),
      model: model ?? info.defaultModel,
    };
  }

  /** New agents use a provider that works here: one with a key, a local server set up, else scripted. */
  const defaultProviderId = computed(() => workingProviderId(providers.value));

  bridge.onDidReceiveEvent((event) => {
    if (event.channel === 'store.changed' && event.payload.topic === 'providers') void load();
  });

  return {
    providers,
    keyStorage,
    tools,
    tests,
    error,
    load,
    save,
    setKey,
    test,
    modelsOf,
    find,
    refFor,
    defaultProviderId,
  };
});

import { describe, expect, it } from 'vitest';
import { fleetSchema, validateFleet } from '@shared/domain';
import type { ProviderInfo } from '@shared/contract';
import { AGENT_TEMPLATES, workingProviderId } from '../../../src-renderer/builder/templates';

function provider(id: ProviderInfo['id'], extra: Partial<ProviderInfo> = {}): ProviderInfo {
  return {
    id,
    label: id,
    baseUrl: 'http://127.0.0.1:1/v1',
    defaultModel: id === 'scripted' ? 'scripted' : 'model',
    apiKeyEnv: id === 'scripted' ? null : 'SOME_KEY',
    keySet: false,
    keySource: null,
    keyOptional: id === 'scripted' || id === 'ollama',
    saved: false,
    builtIn: id === 'scripted',
    hint: '',
    ...extra,
  };
}

describe('keyless defaults for new agents', () => {
  it('picks the scripted provider when no key is configured anywhere', () => {
    expect(workingProviderId([])).toBe('scripted');
    expect(workingProviderId([provider('scripted'), provider('openai'), provider('ollama')])).toBe(
      'scripted',
    );
    // A saved provider that still has no key does not work either.
    expect(workingProviderId([provider('scripted'), provider('openai', { saved: true })])).toBe('scripted');
  });

  it('picks a provider with a key, from the vault or the environment, before anything else', () => {
    const list = [
      provider('scripted'),
      provider('ollama', { saved: true }),
      provider('openrouter', { keySet: true, keySource: 'environment' }),
    ];
    expect(workingProviderId(list)).toBe('openrouter');
    expect(workingProviderId([provider('openai', { keySet: true, keySource: 'vault' })])).toBe('openai');
  });

  it('picks a local server the user set up when no provider has a key', () => {
    expect(workingProviderId([provider('scripted'), provider('ollama', { saved: true })])).toBe('ollama');
  });

  it('gives every model template demo replies at a typing pace under the scripted provider, and none otherwise', () => {
    for (const template of AGENT_TEMPLATES) {
      const keyless = template.make({ id: 'scripted', model: 'scripted' });
      const keyed = template.make({ id: 'openai', model: 'gpt-4o-mini' });
      if (keyless.type === 'llm') {
        expect(keyless.script?.length, template.id).toBeGreaterThan(0);
        expect(keyless.charsPerSecond, template.id).toBeGreaterThan(0);
        expect(keyed.script, template.id).toBeUndefined();
      }
      // Every template makes an agent a fleet accepts as it is.
      const fleet = fleetSchema.parse({
        version: 1,
        name: 'one',
        agents: [{ name: 'agent', ...keyless }],
        team: { pattern: 'sequential' },
      });
      expect(
        validateFleet(fleet).filter((issue) => issue.severity === 'error'),
        template.id,
      ).toEqual([]);
    }
  });
});

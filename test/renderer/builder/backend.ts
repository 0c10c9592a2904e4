import { setBridge } from '../../../src-renderer/bridge/current';
import type { ProviderInfo } from '@shared/contract';
import { createFakeBridge } from '../../helpers/fake-bridge';

const provider = (
  id: ProviderInfo['id'],
  label: string,
  baseUrl: string,
  defaultModel: string,
  extra: Partial<ProviderInfo> = {},
): ProviderInfo => ({
  id,
  label,
  baseUrl,
  defaultModel,
  apiKeyEnv: null,
  keySet: false,
  keySource: null,
  keyOptional: true,
  saved: false,
  builtIn: false,
  hint: '',
  ...extra,
});

export const PROVIDERS: ProviderInfo[] = [
  provider('scripted', 'Scripted (built in)', 'http://localhost/scripted', 'scripted', { builtIn: true }),
  provider('openai', 'OpenAI', 'https://api.openai.com/v1', 'gpt-4o-mini', {
    apiKeyEnv: 'OPENAI_API_KEY',
    keyOptional: false,
  }),
  provider('ollama', 'Ollama', 'http://localhost:11434/v1', 'llama3.2'),
];

/** A fake backend for the builder: providers, tools, fleets.save (recorded), runs.start, fleets.testToolServer. */
export function builderBackend() {
  let saved = 0;
  const fake = createFakeBridge((channel, input) => {
    switch (channel) {
      case 'providers.list':
        return {
          ok: true,
          value: {
            providers: PROVIDERS,
            keyStorage: { kind: 'environment', writable: false, weak: false, message: 'env' },
          },
        };
      case 'tools.list':
        return {
          ok: true,
          value: [
            { name: 'calculator', description: 'math' },
            { name: 'current_time', description: 'clock' },
            { name: 'read_file', description: 'files' },
          ],
        };
      case 'providers.test':
        return {
          ok: true,
          value: { ok: true, models: ['llama3.2', 'qwen2.5'], message: 'Connected', elapsedMs: 3 },
        };
      case 'fleets.save':
        saved += 1;
        return {
          ok: true,
          value: {
            id: (input as { id?: string }).id ?? `fleet-${saved}`,
            name: 'x',
            description: '',
            example: false,
            scripted: true,
            agentCount: 1,
            pattern: 'sequential',
            updatedAt: 1,
          },
        };
      case 'runs.start':
        return { ok: true, value: { sessionId: 'session-1' } };
      case 'fleets.testToolServer':
        // A server named `files` starts and lists two tools; any other does not start.
        return (input as { name: string }).name === 'files'
          ? {
              ok: true,
              value: {
                durationMs: 12,
                tools: [
                  {
                    name: 'read_text_file',
                    description: 'Read a file',
                    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
                  },
                  { name: 'list_directory', description: 'List a folder', inputSchema: { type: 'object' } },
                ],
              },
            }
          : {
              ok: false,
              error: {
                code: 'unavailable',
                message: 'the tool server "web" did not start: spawn nope ENOENT',
              },
            };
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
  setBridge(fake.bridge);
  return fake;
}

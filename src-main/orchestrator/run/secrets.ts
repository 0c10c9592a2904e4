import { fleetProviders, mcpSecrets, type Fleet } from '@shared/domain';
import type { Secret } from '../runtime/secret-masker';

/**
 * The values a run must never record: the API key of every provider the fleet calls, read from
 * the same environment the model clients read them from (after provider overrides, so a key the
 * run really sends is the one masked), the values of its MCP servers' env and headers, plus any
 * secrets the caller adds (keys kept elsewhere).
 */
export function secretsInUse(fleet: Fleet, env: NodeJS.ProcessEnv, extra: readonly string[]): Secret[] {
  const secrets: Secret[] = [];
  for (const provider of fleetProviders(fleet)) {
    const name = provider.apiKeyEnv;
    const value = name ? env[name] : undefined;
    if (name && value) secrets.push({ value, label: name });
  }
  secrets.push(...mcpSecrets(fleet.mcpServers ?? {}));
  for (const value of extra) secrets.push({ value, label: 'secret' });
  return secrets;
}

import type { ToolInfo } from '@shared/contract';
import type { Handlers } from './dispatcher';
import type { ProviderService } from '../services/providers';

type ProviderHandlers = Pick<
  Handlers,
  'providers.list' | 'providers.save' | 'providers.setKey' | 'providers.test' | 'tools.list'
>;

export function registerProviderHandlers(deps: {
  providers: ProviderService;
  tools: readonly ToolInfo[];
  onDidChange: () => void;
}): ProviderHandlers {
  const { providers } = deps;
  return {
    'providers.list': () => ({ providers: providers.list(), keyStorage: providers.keyStorage() }),
    'providers.save': (input) => {
      const info = providers.save(input);
      deps.onDidChange();
      return info;
    },
    'providers.setKey': ({ id, key }) => {
      const info = providers.setKey(id, key);
      deps.onDidChange();
      return info;
    },
    'providers.test': ({ id, baseUrl }) => providers.test(id, baseUrl),
    'tools.list': () => [...deps.tools],
  };
}

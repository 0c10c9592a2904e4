import { maskFleetSecrets, parseFleet, restoreFleetSecrets, type FleetInput } from '@shared/domain';
import type { Handlers } from './dispatcher';
import type { FleetCatalog } from '../services/fleet-catalog';
import { testToolServer } from '../services/tool-server-test';

type FleetHandlers = Pick<
  Handlers,
  'fleets.list' | 'fleets.get' | 'fleets.save' | 'fleets.delete' | 'fleets.validate' | 'fleets.testToolServer'
>;

export function registerFleetHandlers(catalog: FleetCatalog): FleetHandlers {
  return {
    'fleets.list': () => catalog.list(),
    'fleets.get': ({ id }) => {
      const { summary, fleet } = catalog.get(id);
      // MCP env and header values are secrets: the renderer sees markers, `fleets.save` puts them back.
      return { summary, fleet: maskFleetSecrets(fleet) };
    },
    'fleets.save': ({ id, copyOf, fleet }) => {
      const from = id ?? copyOf;
      return catalog.save(
        restoreFleetSecrets(fleet as FleetInput, from !== undefined ? catalog.get(from).fleet : null),
        id,
      );
    },
    'fleets.delete': ({ id }) => ({ deleted: catalog.delete(id) }),
    'fleets.testToolServer': (input) => testToolServer(catalog, input),
    'fleets.validate': ({ fleet }) => {
      const result = parseFleet(fleet);
      const strip = ({ path, message }: { path: string; message: string }) => ({ path, message });
      return result.ok
        ? { errors: [], warnings: result.warnings.map(strip) }
        : { errors: result.issues.filter((issue) => issue.severity === 'error').map(strip), warnings: [] };
    },
  };
}

import type { BranchService } from '../services/branch-service';
import type { Handlers } from './dispatcher';
import type { EventHub } from '../delivery/event-hub';
import { trackTask } from '../services/task-progress';

type BranchHandlers = Pick<
  Handlers,
  'branches.fork' | 'branches.family' | 'branches.compare' | 'branches.exportCompare'
>;

/** Fork, family tree and compare channels. Ids may be unique prefixes; unknown ones answer not-found. */
export function registerBranchHandlers(branches: BranchService, hub: EventHub): BranchHandlers {
  return {
    'branches.fork': (input) => branches.fork(input),
    'branches.family': ({ id }) => branches.family(id),
    'branches.compare': ({ a, b, offset, limit }) => branches.compare(a, b, offset, limit),
    'branches.exportCompare': async ({ a, b, format, taskId }) => {
      const task = trackTask(hub, `Exporting a comparison as ${format}`, taskId);
      try {
        return await branches.exportCompareToFolder(a, b, format);
      } finally {
        task.finish(1, 1);
      }
    },
  };
}

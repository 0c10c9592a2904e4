export type { PatternState, RoundPlan, Speaker, TeamPattern } from './pattern';
export { SequentialPattern } from './sequential';
export { RoundRobinPattern } from './round-robin';
export { SelectorPattern, type RoutingDecision, type SelectorOptions } from './selector';
export { SwarmPattern } from './swarm';
export { ParallelPattern } from './parallel';
export { buildPattern, type PatternServices } from './build';

export { agentViewOf, foldRuntime, type RuntimeSnapshot, type TeamSnapshot } from './runtime-fold';

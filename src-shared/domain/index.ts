export * from './message';
export * from './session';
export * from './event';
export * from './fleet';
export * from './fleet-validate';

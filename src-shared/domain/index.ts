export * from './message';
export * from './session';
export * from './event';
export * from './fleet';
export * from './fold';
export * from './fleet-validate';
export * from './url';
export * from './stop-reasons';

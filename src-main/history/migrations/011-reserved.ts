import type { Migration } from './runner';

/**
 * Schema 11 changes nothing. Its number is held for a migration being written beside this one
 * (the runner requires 1..n without gaps); that migration takes this file's place when both land.
 */
export const reservedEleven: Migration = {
  version: 11,
  name: 'reserved',
  up() {},
};

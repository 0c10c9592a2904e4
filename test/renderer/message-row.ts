import type { Message } from '@shared/domain';

/** What a test may set besides the defaults of `rowProps`. */
export interface RowExtras {
  depth?: number;
  selected?: boolean;
  color?: string;
  startedAt?: number | null;
}

/** MessageItem's props for `message` as a top-level row nothing folds, hides or highlights. */
export function rowProps(message: Message, extra: RowExtras = {}) {
  return {
    message,
    depth: 0,
    descendants: 0,
    collapsed: false,
    droppedReason: null,
    highlighted: false,
    toggleable: false,
    ...extra,
  };
}

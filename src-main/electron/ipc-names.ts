/** The IPC channel carrying batched contract events from main to a window. */
export const EVENTS_CHANNEL = 'fleetscope:events';

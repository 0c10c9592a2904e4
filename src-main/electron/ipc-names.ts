/** The IPC channel carrying batched contract events from main to a window. */
export const EVENTS_CHANNEL = 'fleetscope:events';

/** The IPC channel of the desktop's native folder picker (the run form's "Choose…"). */
export const PICK_FOLDER_CHANNEL = 'fleetscope:pick-folder';

/**
 * Every keyboard shortcut the app has, for the shortcut sheet ("?"). The handlers live where the
 * keys are handled (App.vue, session-view/useSessionKeys.ts, builder/useBuilderKeys.ts,
 * branches/fork-action.ts, compare/CompareView.vue, the text fields listed under "While
 * typing"); a shortcut added there belongs here too, and test/renderer/first-hour/shell-edges.test.ts
 * checks that the keys those handlers react to are all listed.
 */
export interface Shortcut {
  /** Key combinations, each an array of key caps: [['Ctrl', '1']] or [['←'], ['→']]. */
  keys: string[][];
  what: string;
}

export interface ShortcutGroup {
  title: string;
  /** Where the group applies, in a few words. */
  where: string;
  shortcuts: Shortcut[];
}

/** "Ctrl" on Linux and Windows, "⌘" on a Mac. */
export function modifierName(platform: string): string {
  return /mac|iphone|ipad/i.test(platform) ? '⌘' : 'Ctrl';
}

export function shortcutGroups(mod: string): ShortcutGroup[] {
  return [
    {
      title: 'Anywhere',
      where: 'in every page',
      shortcuts: [
        { keys: [['?']], what: 'Show or hide this list of shortcuts' },
        { keys: [[mod, '1']], what: 'Go to Sessions' },
        { keys: [[mod, '2']], what: 'Go to Fleets' },
        { keys: [[mod, '3']], what: 'Go to Settings' },
        { keys: [['Esc']], what: 'Close this list, a menu or a dialog' },
      ],
    },
    {
      title: 'Session',
      where: 'while a session is open',
      shortcuts: [
        { keys: [['Space']], what: 'Play or pause the replay' },
        { keys: [['←'], ['→']], what: 'Previous or next message' },
        {
          keys: [
            ['Shift', '←'],
            ['Shift', '→'],
          ],
          what: 'Previous or next event',
        },
        { keys: [['Home'], ['End']], what: 'Jump to the start or the end' },
        { keys: [['P']], what: 'Pause or resume a live run' },
        { keys: [['N']], what: 'Let a paused run take one more round' },
        { keys: [['X']], what: 'Stop a live run' },
        { keys: [['F']], what: 'Fork here: at the message under the pointer, else at the playhead' },
        { keys: [['M']], what: 'Maximise the graph or lanes, or show the transcript again' },
      ],
    },
    {
      title: 'Comparing two sessions',
      where: 'side by side',
      shortcuts: [
        { keys: [['D']], what: 'Jump to where the two sessions part ways' },
        { keys: [['S']], what: 'Swap left and right' },
      ],
    },
    {
      title: 'Fleet builder',
      where: 'on the Fleets page',
      shortcuts: [
        { keys: [[mod, 'Z']], what: 'Undo' },
        {
          keys: [
            [mod, 'Shift', 'Z'],
            [mod, 'Y'],
          ],
          what: 'Redo',
        },
        { keys: [[mod, 'C']], what: 'Copy the selected agent' },
        { keys: [[mod, 'V']], what: 'Paste the copied agent' },
        { keys: [['Delete'], ['Backspace']], what: 'Remove the selected agent or connection' },
      ],
    },
    {
      title: 'While typing',
      where: 'in text fields',
      shortcuts: [
        { keys: [[mod, 'Enter']], what: 'Run the task, send an answer or a follow-up, start a fork' },
        { keys: [['Enter'], ['Shift', 'Enter']], what: 'Next or previous match in transcript search' },
        { keys: [['Enter']], what: 'Save a title or tags you are editing' },
        { keys: [['Esc']], what: 'Cancel editing a title or tags' },
        { keys: [['↑'], ['↓']], what: 'Move through an open menu' },
      ],
    },
  ];
}

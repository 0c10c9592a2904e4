import { readFileSync, statSync } from 'node:fs';
import type { ImportedSessionMeta } from '../../history/ports';
import { buildImportedEvents, importedTags, inferFleet } from './build-events';
import { importChatDevLog } from './chatdev';
import { formatBytes, type ImportLimits } from './limits';
import type { ImportPlan } from './import-plan';
import { TransferError, ioError } from './transfer-error';

export const CHATDEV_FORMAT = 'chatdev-log';
const FLEET_NAME = 'Imported ChatDev company';

/**
 * The import plan for a ChatDev log: the text is read whole (a log is a few hundred KB; it is
 * refused past `maxHeldBytes`, counting two bytes per character) and converted at once.
 */
export function planChatDevLog(
  path: string,
  fileTime: number,
  limits: ImportLimits,
  onBytesRead?: (bytes: number) => void,
): ImportPlan {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size * 2 > limits.maxHeldBytes) {
      throw new TransferError(
        'too-large',
        `${path} is ${formatBytes(size)}; a ChatDev log is read whole and may be at most ${formatBytes(Math.floor(limits.maxHeldBytes / 2))}.`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof TransferError) throw error;
    throw ioError('read', path, error);
  }
  onBytesRead?.(Buffer.byteLength(text));
  const conversation = importChatDevLog(text, fileTime);
  for (const [index, message] of conversation.messages.entries()) {
    if (message.content.length > limits.maxStringLength) {
      throw new TransferError(
        'too-large',
        `Utterance ${index + 1} of the ChatDev log is ${message.content.length.toLocaleString('en-US')} characters long; the longest text an import accepts is ${limits.maxStringLength.toLocaleString('en-US')}.`,
      );
    }
  }
  const fleet = inferFleet(conversation, FLEET_NAME, CHATDEV_FORMAT);
  const meta: ImportedSessionMeta = {
    title: conversation.title,
    task: conversation.task,
    fleetName: fleet.name,
    source: CHATDEV_FORMAT,
    createdAt: conversation.createdAt,
    tags: importedTags(conversation),
  };
  const events = buildImportedEvents(conversation, fleet);
  return {
    format: CHATDEV_FORMAT,
    sessions: [{ meta, events, counter: { messages: conversation.messages.length } }],
  };
}

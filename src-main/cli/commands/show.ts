import { parseArgs } from 'node:util';
import { HistoryError, openHistory, type HistoryStore, type StoredMessage } from '../../history';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { formatDuration, formatWhen, hasStore, dataDirFrom } from './sessions';

const PAGE = 500;

/** Every message of a session in order, read a page at a time. */
function* allMessages(store: HistoryStore, sessionId: string): Generator<StoredMessage> {
  let after = 0;
  for (;;) {
    const page = store.pageMessages(sessionId, { after: { seq: after }, limit: PAGE });
    yield* page.items;
    const last = page.items.at(-1);
    if (!page.hasAfter || !last) return;
    after = last.seq;
  }
}

function printMessage(message: StoredMessage, io: CliIO): void {
  const flags = [
    message.kind,
    message.state !== 'complete' ? message.state : null,
    message.droppedReason ? 'dropped' : null,
  ]
    .filter((flag) => flag !== null)
    .join(', ');
  io.out(`[+${(message.t / 1000).toFixed(1)}s] ${message.from} -> ${message.to} (${flags})`);
  for (const line of message.content.split('\n')) io.out(`  ${line}`);
  for (const call of message.toolCalls ?? [])
    io.out(`  > tool call ${call.name}(${call.arguments}) [${call.id}]`);
  for (const result of message.toolResults ?? []) {
    io.out(`  < tool result ${result.name}${result.isError ? ' (error)' : ''}: ${result.content}`);
  }
  if (message.droppedReason) io.out(`  ! not delivered: ${message.droppedReason}`);
  io.out('');
}

export const showCommand: CliCommand = {
  name: 'show',
  summary: "Print one session's transcript (id or unique id prefix)",
  usage: 'fleetscope show SESSION [--json] [--data-dir DIR]',
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { json: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1)
      throw new UsageError('Give exactly one session id (or a unique prefix of one).');
    const wanted = positionals[0] as string;
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.err(`No session with id "${wanted}" (no store in ${dataDir}).`);
      return EXIT.failure;
    }
    const history = openHistory(dataDir, { recover: false });
    try {
      const id = history.store.resolveSessionId(wanted);
      const session = history.store.getSession(id);
      if (!session) throw new HistoryError('not-found', `No session with id "${wanted}".`);
      const s = session.summary;
      if (values.json) {
        // Streamed as lines so a 100k-message session is never one huge string.
        io.out(`{"session":${JSON.stringify(s)},"fleet":${JSON.stringify(session.fleet)},"messages":[`);
        let first = true;
        for (const message of allMessages(history.store, id)) {
          io.out(`${first ? '' : ','}${JSON.stringify(message)}`);
          first = false;
        }
        io.out(']}');
        return EXIT.ok;
      }
      io.out(`${s.title}  (${s.id})`);
      const stop = s.stopReason ? ` (${s.stopReason})` : '';
      io.out(
        `Fleet: ${s.fleetName || '-'} | Status: ${s.status}${stop} | ${s.messageCount} messages | ${s.tokens} tokens | ` +
          `${formatDuration(s.durationMs)} | ${formatWhen(s.createdAt)}${s.readOnly ? ` | imported (${s.source})` : ''}`,
      );
      if (s.task) io.out(`Task: ${s.task}`);
      io.out('');
      for (const message of allMessages(history.store, id)) printMessage(message, io);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof HistoryError) {
        io.err(error.message);
        return EXIT.failure;
      }
      throw error;
    } finally {
      history.close();
    }
  },
};

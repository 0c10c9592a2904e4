import { parseArgs } from 'node:util';
import type { Family } from '@shared/contract';
import { describeFigures, describeUsage, formatCost, addressText, stopReasonSentence } from '@shared/domain';
import { AppError, type FleetscopeApp, type StoredMessage } from '../../app';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';
import { formatDuration, formatWhen } from './sessions';

const PAGE = 500;

/** Every message of a session in order, read a page at a time through the contract. */
async function* allMessages(app: FleetscopeApp, sessionId: string): AsyncGenerator<StoredMessage> {
  let after = 0;
  for (;;) {
    const page = await app.call('sessions.messages', { id: sessionId, after: { seq: after }, limit: PAGE });
    yield* page.items;
    const last = page.items.at(-1);
    if (!page.hasAfter || !last) return;
    after = last.seq;
  }
}

function printMessage(message: StoredMessage, position: number, io: CliIO): void {
  const flags = [
    message.kind,
    message.state !== 'complete' ? message.state : null,
    message.droppedReason ? 'dropped' : null,
  ]
    .filter((flag) => flag !== null)
    .join(', ');
  io.out(
    `#${position} [+${(message.t / 1000).toFixed(1)}s] ${addressText(message.from, message.to)} (${flags})`,
  );
  for (const line of message.content.split('\n')) io.out(`  ${line}`);
  for (const call of message.toolCalls ?? [])
    io.out(`  > tool call ${call.name}(${call.arguments}) [${call.id}]`);
  for (const result of message.toolResults ?? []) {
    io.out(`  < tool result ${result.name}${result.isError ? ' (error)' : ''}: ${result.content}`);
  }
  if (message.droppedReason) io.out(`  ! not delivered: ${message.droppedReason}`);
  if (message.usage) io.out(`  = usage: ${describeUsage(message.usage)}`);
  io.out('');
}

/** The family tree as indented lines, the shown session marked with `*`. */
export function familyLines(family: Family, shown: string): string[] {
  return family.nodes.map((node) => {
    const mark = node.sessionId === shown ? '*' : ' ';
    const at = node.forkOf ? ` @${node.forkOf.atMessage}` : '';
    const label = node.label ? `  ${node.label}` : '';
    return `${mark} ${'  '.repeat(node.depth)}${node.sessionId}${at}  ${node.status}  ${node.messageCount} msgs${label}`;
  });
}

export const showCommand: CliCommand = {
  name: 'show',
  summary:
    "Print one session's transcript (id or unique id prefix), a fork's shared prefix included, and its branches; messages are numbered from 1",
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
    return withApp(dataDir, io, async (app) => {
      let session;
      try {
        session = await app.call('sessions.get', { id: wanted });
      } catch (error) {
        if (error instanceof AppError && (error.code === 'not-found' || error.code === 'invalid-input')) {
          io.err(error.message);
          return EXIT.failure;
        }
        throw error;
      }
      const s = session.summary;
      const family = await app.call('branches.family', { id: s.id });
      if (values.json) {
        // Streamed as lines (waiting for a slow reader) so a 100k-message session is never one huge string.
        io.out(
          `{"session":${JSON.stringify(s)},"forkOf":${JSON.stringify(s.forkOf ?? null)},"fleet":${JSON.stringify(session.fleet)},` +
            `"branches":${JSON.stringify(family)},"messages":[`,
        );
        let first = true;
        for await (const message of allMessages(app, s.id)) {
          io.out(`${first ? '' : ','}${JSON.stringify(message)}`);
          first = false;
          await io.drained?.();
        }
        io.out(']}');
        return EXIT.ok;
      }
      io.out(`${s.title}  (${s.id})`);
      const stop = s.stopReason ? ` (${stopReasonSentence(s.stopReason, { messages: s.messageCount })})` : '';
      io.out(
        `Fleet: ${s.fleetName || '-'} | Status: ${s.status}${stop} | ${s.messageCount} messages | ${s.tokens} tokens | ` +
          `${formatCost({ cost: s.cost ?? 0, unpricedCalls: s.unpricedCalls ?? 0 })} | ` +
          `${formatDuration(s.durationMs)} | ${formatWhen(s.createdAt)}${s.readOnly ? ` | imported (${s.source})` : ''}`,
      );
      if (s.task) io.out(`Task: ${s.task}`);
      const usage = await app.call('sessions.usage', { id: s.id });
      if (usage.total.calls > 0) {
        io.out(`Usage: ${describeFigures(usage.total)}`);
        for (const agent of usage.agents) io.out(`  ${agent.name}: ${describeFigures(agent.figures)}`);
      }
      if (s.forkOf)
        io.out(
          `Fork of ${s.forkOf.sessionId} at message ${s.forkOf.atMessage}; messages 1-${s.forkOf.atMessage} continue its history.`,
        );
      if (family.nodes.length > 1) {
        io.out(
          `Branches (${family.nodes.length} sessions in the family${family.truncated ? ', more not shown' : ''}):`,
        );
        for (const line of familyLines(family, s.id)) io.out(line);
      }
      io.out('');
      let position = 0;
      for await (const message of allMessages(app, s.id)) {
        printMessage(message, ++position, io);
        await io.drained?.();
      }
      return EXIT.ok;
    });
  },
};

/**
 * The OpenAI-compatible stub of the tests (test/helpers/openai-stub.ts) in a process of its own,
 * so its parsing and streaming do not share the measured process's event loop. Started by
 * stub-child.ts (`node --import jiti/register`); talks over the IPC channel:
 *
 *   → { type: 'ready', baseUrl }                  once listening
 *   ← { type: 'reset' }                           zero the counters (→ { type: 'reset' })
 *   ← { type: 'stats' }                           → { type: 'stats', requests, bodyBytes, cpuMs }
 *   ← { type: 'record' } / { type: 'dump', file } keep chat request bodies; write them as JSON
 *   ← { type: 'stall', on }                       while on, replies send one chunk and then hang
 *
 * Every chat request gets the same streamed text in CHUNKS pieces. The stub's own request log is
 * emptied as it goes (a long run would otherwise hold every body).
 */
import { writeFileSync } from 'node:fs';
import { startOpenAiStub } from '../../helpers/openai-stub';
import type { StubCommand } from './stub-child';

const REPLY = 'A short reply of a few words, enough for eight streamed chunks of text.';
const CHUNKS = 8;

const stub = await startOpenAiStub();
let requests = 0;
let bodyBytes = 0;
let cpuAtReset = process.cpuUsage();
let recorded: unknown[] | null = null;
let stalling = false;

stub.respondWith((request) => {
  requests += 1;
  bodyBytes += Number(request.headers['content-length'] ?? 0);
  recorded?.push(request.body);
  stub.requests.length = 0;
  if (stalling) return { type: 'stall', content: 'thinking out loud' };
  return { type: 'text', content: REPLY, chunkSize: Math.ceil(REPLY.length / CHUNKS) };
});

process.on('message', (command: StubCommand) => {
  switch (command.type) {
    case 'reset':
      requests = 0;
      bodyBytes = 0;
      cpuAtReset = process.cpuUsage();
      process.send!({ type: 'reset' });
      break;
    case 'stats': {
      const cpu = process.cpuUsage(cpuAtReset);
      process.send!({ type: 'stats', requests, bodyBytes, cpuMs: (cpu.user + cpu.system) / 1000 });
      break;
    }
    case 'record':
      recorded = [];
      process.send!({ type: 'record' });
      break;
    case 'dump':
      writeFileSync(command.file, JSON.stringify(recorded ?? []));
      recorded = null;
      process.send!({ type: 'dump' });
      break;
    case 'stall':
      stalling = command.on;
      process.send!({ type: 'stall' });
      break;
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
});
process.on('disconnect', () => void stub.close().then(() => process.exit(0)));
process.send!({ type: 'ready', baseUrl: stub.baseUrl });

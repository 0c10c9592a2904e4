// `npm run stub [-- --port N]`: the OpenAI-compatible stub model server the tests use
// (test/helpers/openai-stub.ts), on 127.0.0.1, for trying the examples without an API key. It
// answers chat completions (streamed or not) with short made-up replies that name who is
// speaking and what they were told; any key is accepted. Ctrl+C stops it.
import { parseArgs } from 'node:util';
import { createJiti } from 'jiti';

export const DEFAULT_STUB_PORT = 4141;

/** The text of a chat message's content, whether a string or a list of parts. */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join(' ');
  return '';
}

const LINES = [
  'I would start with the smallest version that works and measure it.',
  'Agreed, but we need a clear owner for each step.',
  'Here is a plan: draft, review, ship, then look at the numbers.',
  'One risk: we have not asked the users yet.',
  'Then the next step is a short check with three of them.',
  'Sounds good. I will write it up.',
];

/** A reply that shows the conversation flowing: who speaks, whom it answers, a canned line. */
export function stubReply(body, count) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const system = textOf(messages.find((message) => message.role === 'system')?.content);
  const last = messages.filter((message) => message.role !== 'system').at(-1);
  const speaker = /you are (?:the )?([A-Za-z][\w-]*)/i.exec(system)?.[1] ?? 'Assistant';
  const to = typeof last?.name === 'string' && last.name ? last.name : 'you';
  const line = LINES[count % LINES.length];
  return textOf(last?.content) ? `${speaker} to ${to}: ${line}` : line;
}

export async function startStubModelServer(port) {
  const jiti = createJiti(import.meta.url);
  const { startOpenAiStub } = await jiti.import('../test/helpers/openai-stub.ts');
  const stub = await startOpenAiStub({ port });
  let count = 0;
  stub.respondWith((request) => ({
    type: 'text',
    content: stubReply(request.body, count++),
    chunkSize: 8,
    delayMs: 10,
  }));
  return stub;
}

async function main() {
  const { values } = parseArgs({ options: { port: { type: 'string' } }, strict: true });
  const port = values.port === undefined ? DEFAULT_STUB_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number (0-65535), got "${values.port}".`);
    process.exit(2);
  }
  let stub;
  try {
    stub = await startStubModelServer(port);
  } catch (error) {
    const reason = error?.code === 'EADDRINUSE' ? `port ${port} is in use; try --port 0` : String(error);
    console.error(`The stub model server could not start: ${reason}.`);
    process.exit(1);
  }
  console.log(`Stub model server (OpenAI-compatible, any key works) at ${stub.baseUrl}`);
  console.log(`OPENAI_BASE_URL=${stub.baseUrl}`);
  const stop = () => void stub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

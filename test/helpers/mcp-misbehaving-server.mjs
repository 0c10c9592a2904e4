// An MCP server (stdio, the official SDK) that misbehaves on purpose, one tool per fault:
// slow (sleeps `ms`), fail (an isError result), crash (exits in the middle of a call),
// big (a megabyte of text), malformed (an input schema no validator accepts), echo, and token
// (whether its API_TOKEN is a real value or a masked marker, without showing it).
// With FLEETSCOPE_MCP_CHILD=1 it first starts a grandchild that lives as long as it does, so
// tests can check a server's whole process tree ends with the run.
import { spawn } from 'node:child_process';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

if (process.env.FLEETSCOPE_MCP_CHILD === '1') {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  process.stderr.write(`grandchild ${child.pid}\n`);
}
if (process.env.FLEETSCOPE_MCP_FAIL_START === '1') {
  // Says how long its API_TOKEN is: a real value and its masked marker differ.
  process.stderr.write(
    `cannot open the database (API_TOKEN: ${(process.env.API_TOKEN ?? '').length} characters)\n`,
  );
  process.exit(3);
}

const object = (properties = {}) => ({ type: 'object', properties });
const TOOLS = [
  { name: 'echo', description: 'Says the text back', inputSchema: object({ text: { type: 'string' } }) },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds',
    inputSchema: object({ ms: { type: 'number' } }),
  },
  { name: 'fail', description: 'Always an error result', inputSchema: object() },
  { name: 'token', description: 'Says what kind of API_TOKEN it got', inputSchema: object() },
  { name: 'crash', description: 'Exits during the call', inputSchema: object() },
  { name: 'big', description: 'A megabyte of text', inputSchema: object() },
  {
    name: 'malformed',
    description: 'Its schema is not a schema',
    // The SDK's client accepts it (it checks only the top level); no JSON Schema validator does.
    inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } },
  },
];

const server = new Server({ name: 'misbehaving', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: `echo: ${String(args.text)}` }] };
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 10_000)));
      return { content: [{ type: 'text', text: 'finally' }] };
    case 'token': {
      const token = process.env.API_TOKEN ?? '';
      const kind = token === '' ? 'none' : token.startsWith('[masked') ? 'a masked marker' : 'a real value';
      return { content: [{ type: 'text', text: `API_TOKEN is ${kind} of ${token.length} characters` }] };
    }
    case 'fail':
      return { isError: true, content: [{ type: 'text', text: 'the disk is full, try a smaller file' }] };
    case 'crash':
      process.stderr.write('segfault in the frobnicator\n');
      process.exit(7);
      break;
    case 'big':
      return { content: [{ type: 'text', text: 'x'.repeat(1024 * 1024) }] };
    default:
      return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
  }
  return { content: [] };
});
await server.connect(new StdioServerTransport());

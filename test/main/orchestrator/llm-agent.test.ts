import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEventSchema } from '@shared/domain';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleet, llm, ofKind, run, transcript } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { toolNames } from '../../helpers/stub-agents';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(null);
});

const solo = (tools: string[]) =>
  fleet({ agents: [llm('math', stub.baseUrl, { tools })], team: { pattern: 'sequential' } });

describe('LLM agent tool calls', () => {
  it('runs parallel tool calls, shows the results to the model and then answers', async () => {
    stub.enqueue(
      {
        type: 'tools',
        argumentChunkSize: 4,
        calls: [
          { id: 'c1', name: 'calculator', arguments: '{"expression":"(2+3)*4"}' },
          { id: 'c2', name: 'calculator', arguments: '{"expression":"2^10"}' },
        ],
      },
      { type: 'text', content: 'The answers are 20 and 1024.' },
    );
    const { handle, events } = run({ fleet: solo(['calculator']), task: 'compute' });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(toolNames(stub.chatRequests()[0]!)).toEqual(['calculator']);
    const second = stub.chatRequests()[1]!.body?.messages ?? [];
    expect(second.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(second.slice(3).map((message) => [message.tool_call_id, message.content])).toEqual([
      ['c1', '20'],
      ['c2', '1024'],
    ]);
    expect(ofKind(events, 'tool.requested').map((event) => event.payload.arguments)).toEqual([
      '{"expression":"(2+3)*4"}',
      '{"expression":"2^10"}',
    ]);
    expect(
      ofKind(events, 'tool.executed').map((event) => [event.payload.result, event.payload.isError]),
    ).toEqual([
      ['20', false],
      ['1024', false],
    ]);
    const kinds = ofKind(events, 'message.completed').map(
      (event) => `${event.payload.message.kind}>${event.payload.message.to}`,
    );
    expect(kinds).toEqual(['task>math', 'function>math', 'tool>math', 'text>user']);
    expect(transcript(events).at(-1)).toBe('math>user: The answers are 20 and 1024.');
    for (const event of events) expect(runEventSchema.safeParse(event).success, event.kind).toBe(true);
  });

  it('turns malformed or schema-breaking arguments into error results the model sees', async () => {
    stub.enqueue(
      {
        type: 'tools',
        calls: [
          { id: 'bad-json', name: 'calculator', arguments: '{"expression": ' },
          { id: 'bad-schema', name: 'calculator', arguments: '{"expr": "1+1"}' },
          { id: 'unknown', name: 'rm_rf', arguments: '{}' },
        ],
      },
      { type: 'text', content: 'Sorry, my tools failed.' },
    );
    const { handle, events } = run({ fleet: solo(['calculator']), task: 'compute' });
    expect((await handle.done).status).toBe('completed');
    const results = ofKind(events, 'tool.executed').map((event) => event.payload);
    expect(results.every((result) => result.isError)).toBe(true);
    expect(results[0]?.result).toContain('not valid JSON');
    expect(results[1]?.result).toContain("must have required property 'expression'");
    expect(results[2]?.result).toContain('no tool named "rm_rf"');
    const toolMessages = (stub.chatRequests()[1]!.body?.messages ?? []).filter(
      (message) => message.role === 'tool',
    );
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      'bad-json',
      'bad-schema',
      'unknown',
    ]);
    expect(String(toolMessages[1]?.content)).toContain('Error:');
  });

  it('reads files only inside the shared folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fleetscope-files-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'notes.txt'), 'secret plan: ship it');
    stub.enqueue(
      {
        type: 'tools',
        calls: [
          { id: 'in', name: 'read_file', arguments: '{"path":"docs/notes.txt"}' },
          { id: 'out', name: 'read_file', arguments: '{"path":"../../etc/passwd"}' },
        ],
      },
      { type: 'text', content: 'done' },
    );
    const { handle, events } = run({ fleet: solo(['read_file']), task: 'read', fileRoot: root });
    await handle.done;
    const results = ofKind(events, 'tool.executed').map((event) => event.payload);
    expect(results[0]).toMatchObject({ result: 'secret plan: ship it', isError: false });
    expect(results[1]?.isError).toBe(true);
  });

  it('sends the provider settings of the fleet', async () => {
    stub.enqueue({ type: 'text', content: 'ok' });
    const { handle } = run({
      fleet: fleet({
        agents: [
          {
            name: 'tuned',
            systemPrompt: 'Be brief.',
            provider: {
              id: 'custom',
              baseUrl: stub.baseUrl,
              model: 'tiny-1',
              temperature: 0.2,
              maxTokens: 64,
            },
          },
        ],
        team: { pattern: 'sequential' },
      }),
      task: 'hi',
    });
    await handle.done;
    const body = stub.chatRequests()[0]!.body;
    expect(body).toMatchObject({ model: 'tiny-1', temperature: 0.2, max_tokens: 64 });
    expect(body?.messages?.[0]).toMatchObject({ role: 'system', content: 'Be brief.' });
  });

  it('records token usage on the message and in the summary', async () => {
    stub.enqueue({ type: 'text', content: 'counted', usage: { prompt: 12, completion: 3 } });
    const { handle, events } = run({ fleet: solo([]), task: 'count' });
    const summary = await handle.done;
    expect(summary.tokens).toEqual({ prompt: 12, completion: 3, total: 15 });
    expect(ofKind(events, 'usage')[0]?.payload.usage).toMatchObject({ prompt: 12, completion: 3 });
  });
});

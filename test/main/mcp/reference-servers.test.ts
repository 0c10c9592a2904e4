import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FleetInvalidError } from '@shared/domain';
import { fleet, ofKind, scripted, transcript } from '../../helpers/fleet-builders';
import { gone, referenceServer, startEverythingHttp } from '../../helpers/mcp-servers';
import { makeTempDir } from '../../helpers/temp-dir';
import { call, results, runWithServers, toolFleet } from './mcp-run-helpers';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir('fleetscope-mcp-');
});
afterEach(() => temp.remove());

describe('agents call the reference MCP servers over stdio', () => {
  it('memory: one server shared by two agents stores an entity and reads it back; it ends with the run', async () => {
    const memoryFile = join(temp.dir, 'memory.jsonl');
    const { handle, events, pids } = runWithServers({
      fleet: fleet({
        mcpServers: { memory: referenceServer('memory', [], { env: { MEMORY_FILE_PATH: memoryFile } }) },
        agents: [
          scripted(
            'writer',
            [
              call('memory/create_entities', {
                entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
              }),
            ],
            { tools: ['memory/create_entities'] },
          ),
          scripted('reader', [call('memory/read_graph', {}, 'Ada is in the graph.')], {
            tools: ['memory/*'],
          }),
        ],
        team: { pattern: 'sequential' },
      }),
      task: 'Remember Ada',
    });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    const [created, graph] = results(events);
    expect(created).toMatchObject({ server: 'memory', tool: 'create_entities', isError: false });
    expect(graph?.result).toContain('wrote the first program');
    expect(ofKind(events, 'tool.requested')[0]?.payload).toMatchObject({
      name: 'memory__create_entities',
      server: 'memory',
      tool: 'create_entities',
    });
    expect(transcript(events)).toContain('reader>user: Ada is in the graph.');
    expect(readFileSync(memoryFile, 'utf8')).toContain('Ada');
    // One process served both agents, and it is gone once the run ended.
    expect(pids()).toHaveLength(1);
    expect(await gone(pids())).toBe(true);
  });

  it('filesystem: reads a file in the folder it was given', async () => {
    writeFileSync(join(temp.dir, 'notes.txt'), 'the launch is on Tuesday');
    const { handle, events, pids } = runWithServers({
      fleet: toolFleet(
        { files: referenceServer('filesystem', [temp.dir]) },
        ['files/read_text_file'],
        [call('files/read_text_file', { path: join(temp.dir, 'notes.txt') }, 'Read it.')],
      ),
      task: 'Read the notes',
    });
    expect((await handle.done).status).toBe('completed');
    expect(pids()).not.toHaveLength(0);
    expect(results(events)[0]).toMatchObject({ isError: false, result: 'the launch is on Tuesday' });
    expect(await gone(pids())).toBe(true);
  });

  it('filesystem: a path outside its folder is an error result the agent reads, and the run goes on', async () => {
    const { handle, events } = runWithServers({
      fleet: toolFleet(
        { files: referenceServer('filesystem', [temp.dir]) },
        ['files/read_text_file'],
        [call('files/read_text_file', { path: '/etc/hostname' }, 'It was refused.')],
      ),
      task: 'Read outside',
    });
    expect((await handle.done).status).toBe('completed');
    const [result] = results(events);
    expect(result?.isError).toBe(true);
    expect(result?.result).toMatch(/denied|outside|not allowed/i);
    expect(transcript(events)).toContain('worker>user: It was refused.');
  });

  it('everything: sums, and names an image by type and size for the model', async () => {
    const { handle, events, pids } = runWithServers({
      fleet: toolFleet(
        { everything: referenceServer('everything', ['stdio']) },
        ['everything/*'],
        [
          {
            content: 'Done.',
            toolCalls: [
              { name: 'everything/get-sum', arguments: { a: 2, b: 3 } },
              { name: 'everything/get-tiny-image', arguments: {} },
            ],
          },
        ],
      ),
      task: 'Add and draw',
    });
    expect((await handle.done).status).toBe('completed');
    const [sum, image] = results(events);
    expect(sum?.result).toContain('5');
    expect(image?.result).toMatch(/\[image image\/png, \d+ bytes\]/);
    // The model's view: one function message with both calls, one tool message with both results.
    const kinds = ofKind(events, 'message.completed').map((event) => event.payload.message.kind);
    expect(kinds).toEqual(['task', 'function', 'tool', 'text']);
    expect(await gone(pids())).toBe(true);
  });

  it('a tool the server does not have fails the run before the agent speaks, naming server and tool', async () => {
    const { handle, events, pids } = runWithServers({
      fleet: toolFleet(
        { memory: referenceServer('memory', [], { env: { MEMORY_FILE_PATH: join(temp.dir, 'm.jsonl') } }) },
        ['memory/forget_everything'],
        [call('memory/forget_everything')],
      ),
      task: 'Forget',
    });
    const summary = await handle.done;
    expect(summary.status).toBe('failed');
    expect(summary.detail).toContain(
      '"memory/forget_everything": the server "memory" has no tool "forget_everything"',
    );
    expect(summary.detail).toContain('read_graph');
    expect(ofKind(events, 'tool.requested')).toHaveLength(0);
    expect(await gone(pids())).toBe(true);
  });

  it('a server the fleet does not declare is refused before anything starts', () => {
    expect(() =>
      runWithServers({
        fleet: toolFleet({}, ['memory/read_graph'], [call('memory/read_graph')]),
        task: 'x',
      }),
    ).toThrow(FleetInvalidError);
  });

  it('a continued session starts its servers again', async () => {
    const memoryFile = join(temp.dir, 'memory.jsonl');
    const { handle, events, pids } = runWithServers({
      fleet: toolFleet(
        { memory: referenceServer('memory', [], { env: { MEMORY_FILE_PATH: memoryFile } }) },
        ['memory/*'],
        [
          call('memory/create_entities', {
            entities: [{ name: 'Lin', entityType: 'person', observations: [] }],
          }),
          call('memory/search_nodes', { query: 'Lin' }, 'Found Lin.'),
        ],
      ),
      task: 'Remember Lin',
    });
    expect((await handle.done).status).toBe('completed');
    const continued = await handle.continueWith('Look again');
    expect(continued.status).toBe('completed');
    // A server for the run and another for its continuation, both ended.
    expect(new Set(pids())).toHaveProperty('size', 2);
    expect(await gone(pids())).toBe(true);
    const found = results(events)[1];
    expect(found?.isError).toBe(false);
    expect(found?.result).toContain('Lin');
  });
});

describe('an MCP server over Streamable HTTP', () => {
  it('answers calls, and its header values never reach the events', async () => {
    const server = await startEverythingHttp();
    try {
      const token = 'mcp-token-0123456789abcdef';
      const { handle, events } = runWithServers({
        fleet: toolFleet(
          { remote: { url: server.url, headers: { Authorization: `Bearer ${token}` } } },
          ['remote/echo'],
          [call('remote/echo', { message: `my token is ${token}` }, 'Echoed.')],
        ),
        task: 'Echo',
      });
      expect((await handle.done).status).toBe('completed');
      const [echo] = results(events);
      expect(echo).toMatchObject({ server: 'remote', tool: 'echo', isError: false });
      expect(echo?.result).toContain('[masked mcpServers.remote.headers.Authorization]');
      expect(JSON.stringify(events)).not.toContain(token);
    } finally {
      await server.stop();
    }
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isStdioServer, type McpServerSpec } from '@shared/domain';
import { ToolServerFault, type ToolOutput } from '../tool';
import { killTree, processTree } from './process-tree';
import { resultImages, resultText } from './result-text';

/** Default milliseconds for a server to start (and list its tools) and for each call. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
/** A server gets at least this long to start, whatever its call timeout (npx may download it first). */
const MIN_START_TIMEOUT_MS = 30_000;
/** Milliseconds a stdio server has to exit after its stdin closes before it is killed (then SIGKILL after as long again). */
const EXIT_GRACE_MS = 500;
/** Characters of a server's stderr kept to explain why it failed. */
const STDERR_TAIL = 2_000;

/** A tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const CLIENT_INFO = { name: 'fleetscope', version: '1' };

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One MCP server for one run: started by `start`, called by `call`, ended by `close` (which
 * ends a stdio server's whole process tree). After it fails or dies, every call is a
 * ToolServerFault that says why.
 */
export class McpServerConnection {
  private client: Client | null = null;
  private transport: Transport | null = null;
  private stderr = '';
  private closing = false;
  private started = false;
  /** The stdio server's process id once it was spawned (kept after it exits). */
  private spawnedPid: number | null = null;
  /** Why the server cannot be used (did not start, or stopped); null while it can. */
  fault: string | null = null;

  constructor(
    readonly name: string,
    private readonly spec: McpServerSpec,
    private readonly timeoutMs = spec.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
  ) {}

  /** The stdio server's process id (null over HTTP or before it started). */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  /** Connects and lists the tools. Throws ToolServerFault (and keeps it as `fault`) when it cannot. */
  async start(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const transport = this.makeTransport();
    this.transport = transport;
    const client = new Client(CLIENT_INFO);
    this.client = client;
    client.onclose = () => {
      if (this.started && !this.closing && this.fault === null) this.fault = this.describe('stopped');
    };
    const startTimeout = Math.max(this.timeoutMs, MIN_START_TIMEOUT_MS);
    try {
      await client.connect(transport, { timeout: startTimeout, ...(signal ? { signal } : {}) });
      this.spawnedPid = this.pid;
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: startTimeout,
          ...(signal ? { signal } : {}),
        });
        for (const tool of page.tools)
          tools.push({
            name: tool.name,
            description: tool.description ?? tool.title ?? '',
            inputSchema: tool.inputSchema as Record<string, unknown>,
          });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      this.started = true;
      return tools;
    } catch (error) {
      this.fault ??= this.describe(`did not start: ${reason(error)}`);
      throw new ToolServerFault(this.fault);
    }
  }

  /** Calls a tool; `isError` results come back as results. Throws ToolServerFault when the server fails. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput> {
    if (this.fault !== null || this.client === null)
      throw new ToolServerFault(this.fault ?? `the tool server "${this.name}" is not running`);
    try {
      const result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.timeoutMs,
      });
      const images = resultImages(result);
      return {
        content: resultText(result),
        isError: result.isError === true,
        ...(images.length > 0 ? { images } : {}),
      };
    } catch (error) {
      if (signal.aborted) throw error;
      const message = reason(error);
      if (/timed out|timeout/i.test(message))
        throw new ToolServerFault(
          `the tool server "${this.name}" did not answer within ${this.timeoutMs} ms`,
        );
      // Give the close event a moment to say why the connection went (the process's exit).
      await new Promise((resolve) => setImmediate(resolve));
      throw new ToolServerFault(this.fault ?? this.describe(`failed: ${message}`));
    }
  }

  /**
   * Ends the connection and, for stdio, the server's process tree; resolves once it is gone, with
   * the ids of the processes that were ended.
   */
  async close(): Promise<number[]> {
    if (this.closing) return [];
    this.closing = true;
    const pid = this.pid;
    const tree = pid !== null ? processTree(pid) : [];
    const closed = this.client?.close().catch(() => undefined) ?? Promise.resolve();
    if (tree.length > 0) {
      // Closing stdin asks the server to exit; what has not exited by then is killed.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS))]);
      await killTree(tree, EXIT_GRACE_MS);
    } else {
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
    }
    this.fault ??= `the tool server "${this.name}" was stopped`;
    // A server that had already exited has no tree left to end: its own id is all there was.
    return tree.length > 0 ? tree : this.spawnedPid !== null ? [this.spawnedPid] : [];
  }

  private describe(what: string): string {
    const tail = this.stderr.trim();
    return `the tool server "${this.name}" ${what}${tail ? ` (its last output: ${tail.slice(-400)})` : ''}`;
  }

  private makeTransport(): Transport {
    const spec = this.spec;
    if (isStdioServer(spec)) {
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args,
        env: spec.env,
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
    });
  }
}

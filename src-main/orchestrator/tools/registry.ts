import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolCall, ToolResult } from '@shared/domain';
import type { ToolSpec } from '../../llm';
import { MCP_ALL_TOOLS, parseMcpToolRef } from '@shared/domain';
import { modelToolName, ToolError, ToolServerFault, type Tool, type ToolContext } from './tool';

/**
 * Compiled argument validators, one per tool object for the whole process: a tool's schema is
 * compiled the first time one of its calls is checked, never again (registries are made per run).
 */
const validators = new WeakMap<Tool, ValidateFunction>();
let sharedAjv: Ajv | null = null;

function validatorFor(tool: Tool): ValidateFunction {
  let validate = validators.get(tool);
  if (validate === undefined) {
    sharedAjv ??= new Ajv({ allErrors: true, strict: false });
    validate = sharedAjv.compile(tool.parameters);
    validators.set(tool, validate);
  }
  return validate;
}

/** One call's outcome: the result the model reads, the tool it went to, and a server fault if any. */
export interface ToolRun {
  result: ToolResult;
  tool: Tool | undefined;
  /** Why the tool's server failed (start, death, timeout); null when the server answered. */
  fault: string | null;
}

/**
 * Tools by name (`server/tool` for MCP tools), also found by the name the model sees, with
 * arguments checked against each tool's JSON Schema before it runs.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly byModelName = new Map<string, Tool>();
  /** Why each MCP server that did not start cannot answer, by the prefix its tools' model names have. */
  private readonly serverFaults = new Map<string, string>();

  register(tool: Tool): this {
    this.tools.set(tool.name, tool);
    this.byModelName.set(modelToolName(tool.name), tool);
    if (tool.server !== undefined) this.serverFaults.delete(modelToolName(`${tool.server}/`));
    return this;
  }

  /** Every call of a tool of `server` not registered (its server did not start) answers with `fault`. */
  registerServerFault(server: string, fault: string): this {
    this.serverFaults.set(modelToolName(`${server}/`), fault);
    return this;
  }

  /** A copy to add a run's own tools to (MCP servers), leaving this one as it is. */
  extend(): ToolRegistry {
    const copy = new ToolRegistry();
    for (const tool of this.tools.values()) copy.register(tool);
    return copy;
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** A tool by its name or by the name the model sees. */
  get(name: string): Tool | undefined {
    return this.tools.get(name) ?? this.byModelName.get(name);
  }

  /** The tools an agent's list names, `server/*` expanded; unknown names are skipped. */
  resolve(names: readonly string[]): Tool[] {
    const found = new Map<string, Tool>();
    for (const name of names) {
      const ref = parseMcpToolRef(name);
      if (ref?.tool === MCP_ALL_TOOLS) {
        for (const tool of this.tools.values()) if (tool.server === ref.server) found.set(tool.name, tool);
      } else {
        const tool = this.tools.get(name);
        if (tool) found.set(tool.name, tool);
      }
    }
    return [...found.values()];
  }

  /** Specs for the model; unknown names are skipped (the fleet validator reports them). */
  specs(names: readonly string[]): ToolSpec[] {
    return this.resolve(names).map((tool) => ({
      name: modelToolName(tool.name),
      description: tool.description,
      parameters: tool.parameters,
    }));
  }

  /** Runs one call. Never throws: every failure becomes an error result the model can read. */
  async invoke(call: ToolCall, context: ToolContext): Promise<ToolResult> {
    return (await this.run(call, context)).result;
  }

  /** Runs one call (by either name) and says whether its server failed. Never throws. */
  async run(call: ToolCall, context: ToolContext): Promise<ToolRun> {
    const tool = this.get(call.name);
    const fail = (content: string, fault: string | null = null): ToolRun => ({
      result: { callId: call.id, name: call.name, content, isError: true },
      tool,
      fault,
    });
    if (!tool) {
      for (const [prefix, fault] of this.serverFaults)
        if (call.name.startsWith(prefix)) return fail(`Error: ${fault}`, fault);
      return fail(`Error: there is no tool named "${call.name}".`);
    }
    let args: unknown;
    try {
      args = call.arguments.trim().length === 0 ? {} : JSON.parse(call.arguments);
    } catch {
      return fail(`Error: the arguments are not valid JSON: ${call.arguments.slice(0, 200)}`);
    }
    let validate: ValidateFunction;
    try {
      validate = validatorFor(tool);
    } catch (error) {
      return fail(
        `Error: the tool's schema cannot be used: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!validate(args)) {
      const problems = (validate.errors ?? []).map(
        (error) => `${error.instancePath || '(arguments)'} ${error.message ?? 'is invalid'}`,
      );
      return fail(`Error: the arguments do not match the tool's schema: ${problems.join('; ')}.`);
    }
    try {
      const output = await tool.execute(args as Record<string, unknown>, context);
      const content = typeof output === 'string' ? output : output.content;
      const isError = typeof output === 'string' ? false : output.isError === true;
      const images = typeof output === 'string' ? [] : (output.images ?? []);
      return {
        result: {
          callId: call.id,
          name: call.name,
          content,
          isError,
          ...(images.length > 0 ? { images } : {}),
        },
        tool,
        fault: null,
      };
    } catch (error) {
      if (error instanceof ToolServerFault) return fail(`Error: ${error.message}`, error.message);
      if (error instanceof ToolError) return fail(`Error: ${error.message}`);
      return fail(`Error: the tool failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

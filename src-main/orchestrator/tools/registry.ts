import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolCall, ToolResult } from '@shared/domain';
import type { ToolSpec } from '../../llm';
import { ToolError, type Tool, type ToolContext } from './tool';

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

/** Tools by name, with arguments checked against each tool's JSON Schema before it runs. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  register(tool: Tool): this {
    this.tools.set(tool.name, tool);
    return this;
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Specs for the model; unknown names are skipped (the fleet validator reports them). */
  specs(names: readonly string[]): ToolSpec[] {
    return names.flatMap((name) => {
      const tool = this.tools.get(name);
      return tool ? [{ name, description: tool.description, parameters: tool.parameters }] : [];
    });
  }

  /** Runs one call. Never throws: every failure becomes an error result the model can read. */
  async invoke(call: ToolCall, context: ToolContext): Promise<ToolResult> {
    const fail = (content: string): ToolResult => ({
      callId: call.id,
      name: call.name,
      content,
      isError: true,
    });
    const tool = this.tools.get(call.name);
    if (!tool) return fail(`Error: there is no tool named "${call.name}".`);
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
      const content = await tool.execute(args as Record<string, unknown>, context);
      return { callId: call.id, name: call.name, content, isError: false };
    } catch (error) {
      if (error instanceof ToolError) return fail(`Error: ${error.message}`);
      return fail(`Error: the tool failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

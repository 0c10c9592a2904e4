import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolCall, ToolResult } from '@shared/domain';
import type { ToolSpec } from '../../llm';
import { ToolError, type Tool, type ToolContext } from './tool';

/** Tools by name, with arguments checked against each tool's JSON Schema before it runs. */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: Tool; validate: ValidateFunction }>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });

  register(tool: Tool): this {
    this.tools.set(tool.name, { tool, validate: this.ajv.compile(tool.parameters) });
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
      const entry = this.tools.get(name);
      return entry ? [{ name, description: entry.tool.description, parameters: entry.tool.parameters }] : [];
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
    const entry = this.tools.get(call.name);
    if (!entry) return fail(`Error: there is no tool named "${call.name}".`);
    let args: unknown;
    try {
      args = call.arguments.trim().length === 0 ? {} : JSON.parse(call.arguments);
    } catch {
      return fail(`Error: the arguments are not valid JSON: ${call.arguments.slice(0, 200)}`);
    }
    if (!entry.validate(args)) {
      const problems = (entry.validate.errors ?? []).map(
        (error) => `${error.instancePath || '(arguments)'} ${error.message ?? 'is invalid'}`,
      );
      return fail(`Error: the arguments do not match the tool's schema: ${problems.join('; ')}.`);
    }
    try {
      const content = await entry.tool.execute(args as Record<string, unknown>, context);
      return { callId: call.id, name: call.name, content, isError: false };
    } catch (error) {
      if (error instanceof ToolError) return fail(`Error: ${error.message}`);
      return fail(`Error: the tool failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

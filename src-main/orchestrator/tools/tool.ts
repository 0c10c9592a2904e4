import type { ToolImage } from '@shared/domain';

/** What a tool may use while it runs. */
export interface ToolContext {
  signal: AbortSignal;
  /** The folder the user named for read-only file access, or null when none was named. */
  fileRoot: string | null;
}

/** A tool's answer when it is more than text: an error result the model reads, or images to show. */
export interface ToolOutput {
  content: string;
  /** The tool reported a failure as its result (MCP `isError`); the model reads it like any result. */
  isError?: boolean;
  /** Images in the result (MCP image parts), shown to people; `content` names them for the model. */
  images?: ToolImage[];
}

/** A function agents can call. `parameters` is the JSON Schema the model sees and ajv checks. */
export interface Tool {
  /** A built-in's name, or `server/tool` for an MCP server's tool. */
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The MCP server the tool belongs to (absent for built-ins). */
  server?: string;
  /** A person approves each call before it runs (the server's `requireApproval`). */
  requiresApproval?: boolean;
  /** Returns what the model reads. Throw ToolError for a failure the model should see. */
  execute(
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<string | ToolOutput> | string | ToolOutput;
}

/** A failure explained to the model as the tool's result. */
export class ToolError extends Error {}

/**
 * The tool's server failed (did not start, died, or did not answer in time): the model reads it
 * as an error result, and the fleet's `onToolServerError` decides whether the run goes on.
 */
export class ToolServerFault extends ToolError {}

/** The name a model sees for a tool: `server/tool` becomes `server__tool` (OpenAI allows [A-Za-z0-9_-], 64 at most). */
export function modelToolName(name: string): string {
  return name
    .replace('/', '__')
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, 64);
}

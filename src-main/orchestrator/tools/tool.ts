/** What a tool may use while it runs. */
export interface ToolContext {
  signal: AbortSignal;
  /** The folder the user named for read-only file access, or null when none was named. */
  fileRoot: string | null;
}

/** A function agents can call. `parameters` is the JSON Schema the model sees and ajv checks. */
export interface Tool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Returns the text the model reads. Throw ToolError for a failure the model should see. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<string> | string;
}

/** A failure explained to the model as the tool's result. */
export class ToolError extends Error {}

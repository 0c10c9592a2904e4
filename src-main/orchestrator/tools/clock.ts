import { ToolError, type Tool } from './tool';

export const currentTimeTool: Tool = {
  name: 'current_time',
  description: 'Returns the current date and time as ISO 8601 (UTC) and in the given IANA time zone.',
  parameters: {
    type: 'object',
    properties: {
      timeZone: { type: 'string', description: 'IANA zone such as "Europe/Paris"; default UTC' },
    },
    additionalProperties: false,
  },
  execute: (args) => {
    const now = new Date();
    const timeZone = typeof args.timeZone === 'string' ? args.timeZone : 'UTC';
    try {
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(now);
      return `${now.toISOString()} (${timeZone}: ${local})`;
    } catch {
      throw new ToolError(`unknown time zone "${timeZone}"`);
    }
  },
};

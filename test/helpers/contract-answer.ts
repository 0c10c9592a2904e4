import { callErrorSchema, contract, ERROR_CODES, type ChannelName, type Result } from '@shared/contract';

/**
 * Throws unless `result` is what the contract promises for `channel`: an ok value that parses
 * with the channel's output schema, or an error with a known code and a message.
 */
export function assertContractAnswer(channel: unknown, result: Result<unknown>): void {
  if (!result.ok) {
    const error = callErrorSchema.safeParse(result.error);
    if (!error.success || !ERROR_CODES.includes(result.error.code) || result.error.message.length === 0) {
      throw new Error(`${String(channel)} failed outside the error shape: ${JSON.stringify(result.error)}`);
    }
    return;
  }
  if (typeof channel !== 'string' || !Object.prototype.hasOwnProperty.call(contract, channel)) {
    throw new Error(`${String(channel)} is no channel, yet the call succeeded`);
  }
  const parsed = contract[channel as ChannelName].output.safeParse(result.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`)
      .join('; ');
    throw new Error(`${channel} answered outside its output schema: ${issues}`);
  }
}

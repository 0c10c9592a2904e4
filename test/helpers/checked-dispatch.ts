import type { ChannelName, Output, Result } from '@shared/contract';
import type { CallContext, Dispatcher } from '../../src-main/app';
import { assertContractAnswer } from './contract-answer';

/** Dispatches like a binding does and checks the answer against the contract. */
export async function dispatchChecked(
  dispatcher: Dispatcher,
  channel: unknown,
  payload: unknown,
  context: CallContext,
): Promise<Result<unknown>> {
  const result = await dispatcher.dispatch(channel, payload, context);
  assertContractAnswer(channel, result);
  return result;
}

/** The value of a call that must succeed (checked against the output schema). */
export async function callChecked<C extends ChannelName>(
  dispatcher: Dispatcher,
  channel: C,
  payload: unknown,
  context: CallContext,
): Promise<Output<C>> {
  const result = await dispatchChecked(dispatcher, channel, payload, context);
  if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
  return result.value as Output<C>;
}

/** The error of a call that must fail (checked against the error shape). */
export async function failChecked(
  dispatcher: Dispatcher,
  channel: unknown,
  payload: unknown,
  context: CallContext,
): Promise<{ code: string; message: string }> {
  const result = await dispatchChecked(dispatcher, channel, payload, context);
  if (result.ok) throw new Error(`${String(channel)} unexpectedly succeeded`);
  return result.error;
}

import OpenAI from 'openai';
import { createParser } from 'eventsource-parser';

/**
 * Reads a chat completions event stream and hands each event's JSON to `onData`, in order, with
 * the meaning the SDK's `Stream.fromSSEResponse` gives it: `[DONE]` ends the reply (what follows
 * is read and ignored, so the connection can be used again), an event whose JSON carries `error`
 * throws the SDK's `APIError`, data that is not JSON throws a `SyntaxError`, and a read cut by
 * `signal` ends quietly (the caller looks at why it was aborted). An event with no blank line after
 * it at the end of the body is dropped, as the SDK drops it.
 *
 * It costs about a third of the SDK's Stream per reply (one callback per event instead of several
 * async iterators per read), which is most of what a streamed turn costs beyond the bare loop's.
 */
export async function readEventStream(
  response: Response,
  signal: AbortSignal,
  onData: (data: unknown) => void,
): Promise<void> {
  const body = response.body;
  if (body === null) return;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      if (event.data.startsWith('[DONE]')) {
        done = true;
        return;
      }
      const data: unknown = JSON.parse(event.data);
      if (typeof data === 'object' && data !== null && 'error' in data && data.error)
        throw new OpenAI.APIError(undefined, data.error as object, undefined, response.headers);
      onData(data);
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    finished = true;
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  } finally {
    // A reply given up on (bad data, an error event, a callback that threw) frees its connection.
    if (!finished) reader.cancel().catch(() => undefined);
  }
}

import type { Handlers } from './dispatcher';
import type { TraceReceiver } from '../../interop/otlp-in/trace-receiver';

type TraceHandlers = Pick<Handlers, 'traces.receiver' | 'traces.configure'>;

export function registerTraceHandlers(receiver: TraceReceiver): TraceHandlers {
  return {
    'traces.receiver': () => receiver.status(),
    'traces.configure': (patch) => receiver.configure(patch),
  };
}

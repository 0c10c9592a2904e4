import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import OpenAI from 'openai';
import { startShapeRig } from './shape-programs';
import { describeShapes } from './shape-suite';

/**
 * The four conversation shapes traced by OpenLLMetry's instrumentation of the `openai` SDK
 * (`@traceloop/instrumentation-openai`, a dev dependency), the program's own agent and tool spans
 * marked as Traceloop's SDK marks them (`traceloop.span.kind`, `traceloop.entity.*`).
 */
describeShapes('OpenLLMetry (Traceloop openai SDK instrumentation)', () =>
  startShapeRig((provider) => {
    const instrumentation = new OpenAIInstrumentation({ traceContent: true });
    instrumentation.setTracerProvider(provider as Parameters<typeof instrumentation.setTracerProvider>[0]);
    // The SDK's resource classes hang off the client class (OpenAI.Chat.Completions, ...).
    instrumentation.manuallyInstrument(
      OpenAI as unknown as Parameters<typeof instrumentation.manuallyInstrument>[0],
    );
  }, 'traceloop'),
);

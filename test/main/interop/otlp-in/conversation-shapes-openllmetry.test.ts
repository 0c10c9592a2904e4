import OpenAI from 'openai';
import { describe, it } from 'vitest';
import { startShapeRig } from './shape-programs';
import { describeShapes } from './shape-suite';

/**
 * The four conversation shapes traced by OpenLLMetry's instrumentation of the `openai` SDK
 * (`@traceloop/instrumentation-openai`, from npm), the program's own agent and tool spans
 * marked as Traceloop's SDK marks them (`traceloop.span.kind`, `traceloop.entity.*`).
 */
const PACKAGE = '@traceloop/instrumentation-openai';

interface TraceloopInstrumentation {
  setTracerProvider(provider: unknown): void;
  manuallyInstrument(module: unknown): void;
}

const loaded = (await import(/* @vite-ignore */ PACKAGE).catch(() => null)) as {
  OpenAIInstrumentation: new (config?: { traceContent?: boolean }) => TraceloopInstrumentation;
} | null;

if (loaded) {
  const { OpenAIInstrumentation } = loaded;
  describeShapes('OpenLLMetry (Traceloop openai SDK instrumentation)', () =>
    startShapeRig((provider) => {
      const instrumentation = new OpenAIInstrumentation({ traceContent: true });
      instrumentation.setTracerProvider(provider);
      // The SDK's resource classes hang off the client class (OpenAI.Chat.Completions, ...).
      instrumentation.manuallyInstrument(OpenAI);
    }, 'traceloop'),
  );
} else {
  describe('OpenLLMetry (Traceloop openai SDK instrumentation)', () => {
    // Shown as skipped with its reason: the package is a dev dependency still to be installed.
    it.skip(`needs ${PACKAGE} (npm i -D ${PACKAGE}@0.27.0), not installed`, () => {});
  });
}

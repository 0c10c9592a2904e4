import * as openaiModule from 'openai';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { startShapeRig } from './shape-programs';
import { describeShapes } from './shape-suite';

/**
 * The four conversation shapes traced by OpenInference's instrumentation of the `openai` SDK
 * (from npm), and recorded as the OpenTelemetry GenAI semantic conventions say.
 */
describeShapes('OpenInference (openai SDK instrumentation)', () =>
  startShapeRig((provider) => {
    // As the README example does: the instrumentation patches the module's OpenAI class (its
    // types name the class, its code takes the module).
    new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(
      openaiModule as unknown as typeof openaiModule.OpenAI,
    );
  }, 'openinference'),
);

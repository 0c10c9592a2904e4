import { startShapeRig } from './shape-programs';
import { describeShapes } from './shape-suite';

/**
 * The four conversation shapes with the spans the OpenTelemetry GenAI semantic conventions
 * describe (invoke_agent, chat with `gen_ai.input.messages` / `gen_ai.output.messages`,
 * execute_tool, `gen_ai.conversation.id`), made with the OpenTelemetry SDK.
 */
describeShapes('OpenTelemetry GenAI semantic conventions', () => startShapeRig(null, 'genai'));

/** The same model-call spans inside agent, tool and workflow spans marked as Traceloop's SDK marks them. */
describeShapes('GenAI model calls inside Traceloop-marked agent and tool spans', () =>
  startShapeRig(null, 'traceloop'),
);

import { calculatorTool } from './calculator';
import { currentTimeTool } from './clock';
import { readFileTool } from './file-reader';
import { ToolRegistry } from './registry';

export { ToolRegistry, type ToolRun } from './registry';
export {
  ToolError,
  ToolServerFault,
  modelToolName,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from './tool';
export { evaluateExpression, calculatorTool } from './calculator';
export { currentTimeTool } from './clock';
export { readFileTool, resolveInside, MAX_READ_BYTES } from './file-reader';

/** A registry with the safe built-ins: calculator, current_time, read_file. */
export function createBuiltinTools(): ToolRegistry {
  return new ToolRegistry().register(calculatorTool).register(currentTimeTool).register(readFileTool);
}
export { McpToolset, McpServerConnection, type McpToolInfo } from './mcp';

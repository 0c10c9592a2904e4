export { McpServerConnection, DEFAULT_MCP_TIMEOUT_MS, type McpToolInfo } from './connection';
export { McpToolset, serversInUse, type ToolsetOpening, type ToolsetProblem } from './toolset';
export { resultText, MAX_RESULT_CHARS } from './result-text';
export { isAlive, processTree } from './process-tree';

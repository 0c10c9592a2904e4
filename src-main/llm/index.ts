export type {
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatStreamOptions,
  ModelClient,
  ToolSpec,
} from './model-client';
export { ProviderError, redact, type ProviderErrorCode, type PartialOutput } from './provider-error';
export { OpenAiModelClient, DEFAULT_IDLE_TIMEOUT_MS, type OpenAiClientOptions } from './openai-client';
export { ReplayModelClient, type ReplayReply, type ReplayResponder } from './replay-client';
export {
  createModelClientFactory,
  SCRIPTED_PROVIDER,
  type ModelClientFactory,
  type ModelClientSettings,
  type ProviderAddress,
} from './providers';

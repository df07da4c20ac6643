// `chatfmt/ai-sdk`: an AI SDK (v7, LanguageModelV4) provider that renders with the model's own template and reads its
// native output, and a middleware that parses native markup a chat server left in the text. Core-safe: global fetch,
// Web streams, no Node APIs; `@ai-sdk/provider` is used for types only, so nothing from the AI SDK loads at runtime.
export { createChatfmt, ChatfmtLanguageModel, type ChatfmtProvider, type ChatfmtProviderSettings } from './provider.js';
export { chatfmtMiddleware, type ChatfmtMiddlewareSettings } from './middleware.js';
export { toMessages, type ChatfmtProviderOptions } from './prompt.js';
export type { ModelSource } from './model.js';
export { GatewayFailure } from '../gateway/core/failure.js';
export type { GatewayError, GatewayErrorCode } from '../gateway/core/types.js';
export type { BackendKind } from '../gateway/backends/types.js';

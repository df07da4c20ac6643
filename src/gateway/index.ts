// `chatfmt/gateway`: the gateway as a library. Node-only (node:http); the pure pieces it is made of (session,
// protocols, backends, wire codecs) import no Node modules.
export { createGateway, type Gateway, type GatewayOptions, type AccessLogEntry } from './node/server.js';
export { loadGatewayModel, type ModelSpec } from './node/model.js';
export { familyModel, templateModel } from './core/model.js';
export { runSession, preparePrompt, type GatewayModel, type SessionDeps, type PreparedPrompt } from './core/session.js';
export { runRepairSession, type RepairDeps } from './core/repair-session.js';
export { recoverCalls } from './core/lenient.js';
export { openaiChatUpstream, type ChatUpstreamChunk } from './backends/openai-chat-upstream.js';
export { CALL_OPENERS, callPrefill } from './core/prefill.js';
export { STATUS_OF, GatewayFailure } from './core/failure.js';
export type * from './core/types.js';
export { backendProtocols, backendKinds, guessBackendKind, openCompletion, type BackendKind, type BackendChunk, type BackendTarget, type CompletionInput } from './backends/index.js';
export { protocolRoutes, openaiChatProtocol, anthropicMessagesProtocol, openaiResponsesProtocol } from './protocols/index.js';
export { readSse, encodeSse, createSseFolder, type SseEvent } from './wire/sse.js';
export { readNdjson, encodeNdjson } from './wire/ndjson.js';
export { createLineDecoder, readLines } from './wire/lines.js';

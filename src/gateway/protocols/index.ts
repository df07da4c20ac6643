// Which client protocol serves which path. The Anthropic Messages and OpenAI Responses front-ends add their entries
// here (one import and one line each); a path with no protocol answers 404.
import type { Protocol } from '../core/types.js';
import { anthropicMessagesProtocol } from './anthropic-messages.js';
import { openaiChatProtocol } from './openai-chat.js';
import { openaiResponsesProtocol } from './openai-responses.js';

export const protocolRoutes: ReadonlyMap<string, Protocol> = new Map<string, Protocol>([
  ['/v1/chat/completions', openaiChatProtocol],
  ['/v1/messages', anthropicMessagesProtocol],
  ['/v1/responses', openaiResponsesProtocol],
]);

/** Anthropic's token count: not a protocol of its own, but it answers in the Messages protocol's shapes. */
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

/** The protocol whose error shape a path's failures use before a protocol is known (401, 404, 413, 429). */
export function protocolForPath(path: string): Protocol {
  return protocolRoutes.get(path) ?? (path === COUNT_TOKENS_PATH ? anthropicMessagesProtocol : openaiChatProtocol);
}

export { anthropicMessagesProtocol, openaiChatProtocol, openaiResponsesProtocol };

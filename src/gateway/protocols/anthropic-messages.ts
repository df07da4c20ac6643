// The Anthropic Messages front-end (`POST /v1/messages`), as Claude Code and @anthropic-ai/sdk speak it.
import type { Protocol } from '../core/types.js';
import { anthropicError, anthropicStreamError } from './anthropic-messages-errors.js';
import { parseAnthropicRequest } from './anthropic-messages-request.js';
import { aggregateAnthropic, AnthropicWriter } from './anthropic-messages-stream.js';

export const anthropicMessagesProtocol: Protocol = {
  name: 'anthropic-messages',
  parseRequest: parseAnthropicRequest,
  createWriter(meta) {
    const writer = new AnthropicWriter(meta);
    return (event) => writer.write(event);
  },
  aggregate: aggregateAnthropic,
  toHttpError: anthropicError,
  toStreamError: anthropicStreamError,
};

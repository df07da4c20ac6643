// The OpenAI Responses front-end (`POST /v1/responses`), stateless, as Codex and the openai SDK speak it.
import type { Protocol } from '../core/types.js';
import { responsesErrorEvent, responsesHttpError } from './openai-responses-errors.js';
import { parseResponsesRequest } from './openai-responses-request.js';
import { aggregateResponses, ResponsesWriter } from './openai-responses-stream.js';

export const openaiResponsesProtocol: Protocol = {
  name: 'openai-responses',
  parseRequest: parseResponsesRequest,
  createWriter(meta) {
    const writer = new ResponsesWriter(meta);
    return (event) => writer.write(event);
  },
  aggregate: aggregateResponses,
  toHttpError: responsesHttpError,
  // Without the writer's state there is no response to mark failed: the bare `error` event, which every client
  // (the openai SDK included) treats as the end of the stream. Writers report errors with `response.failed` too.
  toStreamError: (error) => [responsesErrorEvent(error, 0)],
};

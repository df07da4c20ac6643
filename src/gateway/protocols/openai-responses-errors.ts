// Responses errors. Before the stream starts, the body is OpenAI's one error envelope, the Chat front-end's; once
// it has started, the same type and code travel in a `ResponseErrorEvent`, which the writer follows with
// `response.failed`.
import { STATUS_OF } from '../core/failure.js';
import type { Frame, GatewayError } from '../core/types.js';
import { openaiChatProtocol } from './openai-chat.js';

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function responsesHttpError(error: GatewayError): { status: number; body: unknown } {
  return openaiChatProtocol.toHttpError(error);
}

export function responsesErrorEvent(error: GatewayError, sequenceNumber: number): Frame {
  const { code, message, param } = (openaiChatProtocol.toHttpError(error).body as OpenAIErrorBody).error;
  return { event: 'error', data: JSON.stringify({ type: 'error', code, message, param, sequence_number: sequenceNumber }) };
}

/** `ResponseError.code` is a closed set: a prompt the model cannot take is `invalid_prompt`, the rest are the server's. */
export function failedResponseCode(error: GatewayError): 'invalid_prompt' | 'rate_limit_exceeded' | 'server_error' {
  if (error.code === 'TOO_MANY_REQUESTS' || (error.code === 'UPSTREAM_ERROR' && error.upstreamStatus === 429)) return 'rate_limit_exceeded';
  return STATUS_OF[error.code] === 400 ? 'invalid_prompt' : 'server_error';
}

// The OpenAI error envelope for /v1/responses ({error: {message, type, param, code}}) and its status table, and the
// in-band `error` event a stream carries once headers are sent.
import type { Frame, GatewayError, GatewayErrorCode } from '../core/types.js';

interface OpenAIErrorShape {
  status: number;
  type: string;
  code: string | null;
}

const BY_CODE: Record<GatewayErrorCode, OpenAIErrorShape> = {
  INVALID_REQUEST: { status: 400, type: 'invalid_request_error', code: null },
  CONTEXT_OVERFLOW: { status: 400, type: 'invalid_request_error', code: 'context_length_exceeded' },
  TEMPLATE_REJECTED: { status: 400, type: 'invalid_request_error', code: 'invalid_prompt' },
  UNAUTHORIZED: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key' },
  NOT_FOUND: { status: 404, type: 'invalid_request_error', code: null },
  BODY_TOO_LARGE: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  TOO_MANY_REQUESTS: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  UPSTREAM_UNREACHABLE: { status: 502, type: 'server_error', code: 'backend_unreachable' },
  UPSTREAM_ERROR: { status: 502, type: 'server_error', code: 'server_error' },
  UPSTREAM_TIMEOUT: { status: 504, type: 'server_error', code: 'timeout' },
  UPSTREAM_PROTOCOL: { status: 502, type: 'server_error', code: 'server_error' },
  INTERNAL: { status: 500, type: 'server_error', code: 'server_error' },
};

export function openAIErrorShape(error: GatewayError): OpenAIErrorShape {
  if (error.code === 'UPSTREAM_ERROR' && error.upstreamStatus === 429) return BY_CODE.TOO_MANY_REQUESTS;
  return BY_CODE[error.code];
}

export function responsesHttpError(error: GatewayError): { status: number; body: unknown } {
  const { status, type, code } = openAIErrorShape(error);
  return { status, body: { error: { message: error.message, type, param: error.param ?? null, code } } };
}

/** `ResponseErrorEvent`: the stream's error report; a writer with the response at hand follows it with `response.failed`. */
export function responsesErrorEvent(error: GatewayError, sequenceNumber: number): Frame {
  const { code } = openAIErrorShape(error);
  const data = { type: 'error', code, message: error.message, param: error.param ?? null, sequence_number: sequenceNumber };
  return { event: 'error', data: JSON.stringify(data) };
}

/** `ResponseError.code` is a closed set: a prompt the model cannot take is `invalid_prompt`, the rest are ours. */
export function failedResponseCode(error: GatewayError): 'invalid_prompt' | 'rate_limit_exceeded' | 'server_error' {
  const { status, code } = openAIErrorShape(error);
  if (code === 'rate_limit_exceeded') return 'rate_limit_exceeded';
  return status === 400 ? 'invalid_prompt' : 'server_error';
}

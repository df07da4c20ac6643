// Anthropic's error envelope and its status table (docs "Errors": 400 invalid_request_error, 401
// authentication_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 500 api_error,
// 504 timeout_error, 529 overloaded_error). Mid-stream, the same envelope goes out as `event: error`.
import type { Frame, GatewayError, GatewayErrorCode } from '../core/types.js';

type AnthropicErrorType =
  | 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'request_too_large'
  | 'rate_limit_error' | 'api_error' | 'timeout_error' | 'overloaded_error';

const BY_CODE: Record<GatewayErrorCode, [number, AnthropicErrorType]> = {
  INVALID_REQUEST: [400, 'invalid_request_error'],
  CONTEXT_OVERFLOW: [400, 'invalid_request_error'],
  TEMPLATE_REJECTED: [400, 'invalid_request_error'],
  UNAUTHORIZED: [401, 'authentication_error'],
  NOT_FOUND: [404, 'not_found_error'],
  BODY_TOO_LARGE: [413, 'request_too_large'],
  // Anthropic's table has no 408; the request is what was wrong, so its type is the request error's.
  REQUEST_TIMEOUT: [408, 'invalid_request_error'],
  TOO_MANY_REQUESTS: [429, 'rate_limit_error'],
  // A backend that cannot be reached is a model that is not available right now: Anthropic's answer to that is
  // 529, which clients (the SDK, Claude Code) retry with backoff.
  UPSTREAM_UNREACHABLE: [529, 'overloaded_error'],
  UPSTREAM_ERROR: [500, 'api_error'],
  UPSTREAM_TIMEOUT: [504, 'timeout_error'],
  UPSTREAM_PROTOCOL: [500, 'api_error'],
  INTERNAL: [500, 'api_error'],
};

/** An upstream status the client should treat the same way (a backend's 429 or 503 is a reason to retry). */
function fromUpstream(status: number | undefined): [number, AnthropicErrorType] | undefined {
  if (status === 429) return [429, 'rate_limit_error'];
  if (status === 503 || status === 529) return [529, 'overloaded_error'];
  return undefined;
}

export function anthropicError(error: GatewayError): { status: number; body: { type: 'error'; error: { type: AnthropicErrorType; message: string } } } {
  const [status, type] = (error.code === 'UPSTREAM_ERROR' ? fromUpstream(error.upstreamStatus) : undefined) ?? BY_CODE[error.code];
  return { status, body: { type: 'error', error: { type, message: error.message } } };
}

export function anthropicStreamError(error: GatewayError): Frame[] {
  return [{ event: 'error', data: JSON.stringify(anthropicError(error).body) }];
}

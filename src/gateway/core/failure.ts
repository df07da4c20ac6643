import type { GatewayError, GatewayErrorCode } from './types.js';

/** A GatewayError thrown across async layers (backend → session); the session turns it back into an `error` event. */
export class GatewayFailure extends Error {
  constructor(readonly error: GatewayError) {
    super(error.message);
    this.name = 'GatewayFailure';
  }
}

export function fail(code: GatewayErrorCode, message: string, extra: Omit<GatewayError, 'code' | 'message'> = {}): GatewayFailure {
  return new GatewayFailure({ code, message, ...extra });
}

/**
 * The HTTP status every protocol uses for each failure kind, so the three front-ends agree; each protocol keeps its own
 * envelope and error type names.
 */
export const STATUS_OF: Record<GatewayErrorCode, number> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  BODY_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  TOO_MANY_REQUESTS: 429,
  CONTEXT_OVERFLOW: 400,
  TEMPLATE_REJECTED: 400,
  UPSTREAM_UNREACHABLE: 502,
  UPSTREAM_ERROR: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_PROTOCOL: 502,
  INTERNAL: 500,
};

// Requests that are not valid HTTP (bad chunk framing, two Content-Lengths, Content-Length beside Transfer-Encoding,
// headers past Node's limit, a request line that is no request line). Node's parser finds them before or while a
// route runs, and by default answers a bare `400 Bad Request` with no body, which the clients' SDKs report as
// "400 status code (no body)". Here they get a one-line error the SDKs read: in the route's own protocol when the
// route was already known, else in a shape both OpenAI's and Anthropic's clients read.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayError } from '../core/types.js';

/** A request whose route runs on this socket, and how that route reports a failure in its protocol. */
export interface InFlight {
  res: ServerResponse;
  fail: (error: GatewayError) => void;
}

/** What Node's parser says went wrong: `code` (HPE_…, ERR_HTTP_REQUEST_TIMEOUT) and `reason`, its words. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The statuses Node itself gives these errors; anything else is a 400. */
const STATUS_OF_CODE: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Content Too Large', 431: 'Request Header Fields Too Large' };

/**
 * Answers a client error on `socket` (the server's 'clientError' event) and closes the connection: the parser cannot
 * find where the next request would start. `inFlight` is the request whose route is running, when there is one.
 */
export function answerClientError(error: ParserError, socket: Socket, inFlight: InFlight | undefined): void {
  // The client is gone, or this answer would be written into the middle of one already under way.
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.res.headersSent) {
    socket.destroy();
    return;
  }
  const status = STATUS_OF_CODE[error.code ?? ''] ?? 400;
  const message = describe(error, status);
  if (inFlight) {
    // The route's own answer (its headers were read: what broke is the body's framing, or its time ran out).
    inFlight.res.setHeader('connection', 'close');
    inFlight.res.once('finish', () => socket.destroy());
    inFlight.fail({ code: status === 408 ? 'REQUEST_TIMEOUT' : status === 413 ? 'BODY_TOO_LARGE' : 'INVALID_REQUEST', message });
    return;
  }
  // Both clients read this: OpenAI's takes `error.message`, `type`, `param`, `code`; Anthropic's `type: "error"`
  // and `error.type`, `error.message`.
  const type = status === 413 ? 'request_too_large' : 'invalid_request_error';
  const body = JSON.stringify({ type: 'error', error: { type, message, param: null, code: error.code ?? null } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function describe(error: ParserError, status: number): string {
  if (status === 408) return 'the request did not arrive in time; the connection is closed';
  if (status === 431) return "the request's headers are larger than the server accepts; the connection is closed";
  // Node's reason is a fixed phrase of its parser ("Invalid character in chunk size"), never the client's bytes.
  const reason = error.reason ?? error.message;
  return `the request is not valid HTTP/1.1 (${reason}); the connection is closed`;
}

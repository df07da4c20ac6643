// One HTTP call to the backend, whatever it asks for (a streamed completion, a token count): the caller's abort
// passed on, an idle timer, the key and headers, and every failure explained as a GatewayError.
import { fail, GatewayFailure } from '../core/failure.js';
import { LineTooLongError } from '../wire/lines.js';
import { MalformedLineError } from '../wire/ndjson.js';
import { isRecord, MalformedChunkError, type BackendTarget, type HttpRequestSpec } from './types.js';
import { clipForMessage } from '../../util/utf16.js';

/** Socket errors that mean nothing is listening there (as opposed to a connection that broke). */
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'];

/** Error bodies are read up to this size for their message. */
const MAX_ERROR_BODY = 64 * 1024;

export class UpstreamCall {
  /** Aborts the backend request: on the caller's abort, on the idle timer, or when the caller stops reading. */
  readonly upstream = new AbortController();
  private timedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = () => this.upstream.abort(this.signal.reason);

  constructor(private readonly target: BackendTarget<unknown, unknown>, private readonly signal: AbortSignal) {
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** (Re)starts the idle timer: the backend has `idleTimeoutMs` to answer, and again for each chunk. */
  arm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.upstream.abort();
    }, this.target.idleTimeoutMs);
  }

  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal.removeEventListener('abort', this.onAbort);
  }

  /** Posts `spec` and resolves with a 2xx response; any other status rejects with the backend's own message. */
  async post(spec: HttpRequestSpec, accept: string): Promise<Response> {
    const headers: Record<string, string> = { ...this.target.headers, 'content-type': 'application/json', accept };
    if (this.target.apiKey) headers.authorization = `Bearer ${this.target.apiKey}`;
    this.arm();
    const response = await this.target.fetch(spec.url, { method: 'POST', headers, body: JSON.stringify(spec.body), signal: this.upstream.signal });
    if (!response.ok) throw await httpFailure(response);
    return response;
  }

  /**
   * The GatewayFailure a caught error stands for (a caller's abort is passed through as it is). `phase`: before the
   * backend answered, while its stream was read, or while a whole answer (a token count) was read.
   */
  explain(error: unknown, phase: 'connect' | 'stream' | 'answer'): unknown {
    if (this.signal.aborted) return error;
    if (this.timedOut) return fail('UPSTREAM_TIMEOUT', `the backend sent nothing for ${this.target.idleTimeoutMs} ms`);
    if (error instanceof GatewayFailure) return error;
    if (error instanceof MalformedLineError || error instanceof MalformedChunkError || error instanceof LineTooLongError) {
      return fail('UPSTREAM_PROTOCOL', `the backend's stream is not ${this.target.protocol.kind} output: ${error.message}`);
    }
    const reason = causeText(error);
    if (phase === 'connect' && UNREACHABLE.some((code) => reason.startsWith(code))) {
      return fail('UPSTREAM_UNREACHABLE', `cannot reach the backend at ${this.target.base}: ${reason}`);
    }
    const when = phase === 'connect' ? 'before it answered' : phase === 'stream' ? 'mid-stream' : 'while it answered';
    return fail('UPSTREAM_ERROR', `the backend connection broke ${when}: ${reason}`);
  }
}

/** A response body as text, read up to `limit` characters (the rest is dropped unread). */
export async function boundedText(response: Response, limit = MAX_ERROR_BODY): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const utf8 = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      text += utf8.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, limit);
}

async function httpFailure(response: Response): Promise<GatewayFailure> {
  const text = await boundedText(response);
  const message = errorMessage(text) ?? `HTTP ${response.status}`;
  const upstreamStatus = response.status;
  if (isContextOverflow(text, message)) return fail('CONTEXT_OVERFLOW', `the prompt does not fit the model's context: ${message}`, { upstreamStatus });
  if (upstreamStatus === 401 || upstreamStatus === 403) {
    return fail('UPSTREAM_ERROR', `the backend refused the gateway's key (HTTP ${upstreamStatus}): ${message}; set CHATFMT_BACKEND_KEY`, { upstreamStatus });
  }
  return fail('UPSTREAM_ERROR', `the backend answered HTTP ${upstreamStatus}: ${message}`, { upstreamStatus });
}

/** The message of the error envelopes backends use: `{error: {message}}`, `{error: "..."}`, `{message}`. */
function errorMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() === '' ? undefined : clipForMessage(text.trim(), 500, String);
  }
  if (!isRecord(body)) return undefined;
  if (typeof body.error === 'string') return body.error;
  if (isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  if (typeof body.message === 'string') return body.message;
  return undefined;
}

// llama.cpp `exceed_context_size_error`, OpenAI/vLLM `context_length_exceeded` / "maximum context length",
// Ollama "exceeds the context"/"context length": all plain substrings, no backtracking.
const OVERFLOW_MARKERS = ['exceed_context_size', 'context_length_exceeded', 'maximum context length', 'context length', 'context size', 'exceeds the context', 'prompt is too long'];

function isContextOverflow(body: string, message: string): boolean {
  const haystack = `${body}\n${message}`.toLowerCase();
  return OVERFLOW_MARKERS.some((marker) => haystack.includes(marker));
}

function causeText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}

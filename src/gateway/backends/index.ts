// The three raw backend kinds, guessing one from a URL, and the HTTP call that all of them share.
import { fail, GatewayFailure } from '../core/failure.js';
import { LineTooLongError } from '../wire/lines.js';
import { MalformedLineError } from '../wire/ndjson.js';
import { llamacppBackend } from './llamacpp.js';
import { ollamaGenerateBackend } from './ollama-generate.js';
import { openaiCompletionsBackend } from './openai-completions.js';
import { isRecord, MalformedChunkError, type BackendChunk, type BackendKind, type BackendProtocol, type CompletionInput, type StreamProtocol } from './types.js';

export * from './types.js';

export const backendProtocols: Record<BackendKind, BackendProtocol> = {
  'llama.cpp': llamacppBackend,
  openai: openaiCompletionsBackend,
  ollama: ollamaGenerateBackend,
};

/**
 * The kind a backend URL most likely is: a path ending in `/v1` is OpenAI-style, Ollama's port 11434 is Ollama,
 * anything else is llama.cpp's server. The CLI prints the guess, so a wrong one is visible.
 */
export function guessBackendKind(url: string): BackendKind {
  const parsed = new URL(url);
  if (parsed.pathname.replace(/\/+$/, '').endsWith('/v1')) return 'openai';
  if (parsed.port === '11434') return 'ollama';
  return 'llama.cpp';
}

export interface BackendTarget<Input = CompletionInput, Chunk = BackendChunk> {
  protocol: StreamProtocol<Input, Chunk>;
  /** The base URL without a trailing slash. */
  base: string;
  /** Sent as `Authorization: Bearer`; from the environment, never from argv. */
  apiKey?: string;
  /** More request headers (an AI SDK caller's `headers`); they cannot replace the content type or the key. */
  headers?: Record<string, string>;
  /** Longest wait for the response headers or the next chunk. */
  idleTimeoutMs: number;
  fetch: typeof fetch;
}

/** Socket errors that mean nothing is listening there (as opposed to a connection that broke). */
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'];

/** Error bodies are read up to this size for their message. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * Posts the completion request and resolves once the backend answered 2xx, with its decoded chunks. Failures before
 * that reject with a GatewayFailure (unreachable, timeout, HTTP error with the backend's message, context overflow);
 * failures while reading throw one from the iterator. A client abort (`signal`) ends the iteration with an AbortError.
 */
export async function openCompletion<Input = CompletionInput, Chunk = BackendChunk>(target: BackendTarget<Input, Chunk>, input: Input, signal: AbortSignal): Promise<AsyncIterable<Chunk>> {
  const { url, body } = target.protocol.buildRequest(target.base, input);
  const upstream = new AbortController();
  const onAbort = () => upstream.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      upstream.abort();
    }, target.idleTimeoutMs);
  };
  const release = () => {
    if (timer !== undefined) clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  };
  const explain = (error: unknown, phase: 'connect' | 'read'): unknown => {
    if (signal.aborted) return error;
    if (timedOut) return fail('UPSTREAM_TIMEOUT', `the backend sent nothing for ${target.idleTimeoutMs} ms`);
    if (error instanceof GatewayFailure) return error;
    if (error instanceof MalformedLineError || error instanceof MalformedChunkError || error instanceof LineTooLongError) {
      return fail('UPSTREAM_PROTOCOL', `the backend's stream is not ${target.protocol.kind} output: ${error.message}`);
    }
    const reason = causeText(error);
    if (phase === 'connect' && UNREACHABLE.some((code) => reason.startsWith(code))) {
      return fail('UPSTREAM_UNREACHABLE', `cannot reach the backend at ${target.base}: ${reason}`);
    }
    return fail('UPSTREAM_ERROR', `the backend connection broke ${phase === 'connect' ? 'before it answered' : 'mid-stream'}: ${reason}`);
  };

  arm();
  let response: Response;
  try {
    const headers: Record<string, string> = { ...target.headers, 'content-type': 'application/json', accept: 'text/event-stream, application/x-ndjson' };
    if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
    response = await target.fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: upstream.signal });
    if (!response.ok) throw await httpFailure(response);
    if (!response.body) throw fail('UPSTREAM_PROTOCOL', 'the backend answered without a body');
  } catch (error) {
    release();
    throw explain(error, 'connect');
  }
  const stream = response.body;
  return (async function* chunks() {
    try {
      arm();
      for await (const chunk of target.protocol.decodeStream(readBody(stream, arm))) yield chunk;
    } catch (error) {
      throw explain(error, 'read');
    } finally {
      release();
      // Ends the upstream request when the consumer stops early (client gone, or enough read).
      if (!upstream.signal.aborted) upstream.abort();
    }
  })();
}

/** A body's bytes via its reader (not every browser can iterate a ReadableStream); `onChunk` re-arms the idle timer. */
async function* readBody(stream: ReadableStream<Uint8Array>, onChunk: () => void): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onChunk();
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
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

async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const utf8 = new TextDecoder();
  let text = '';
  try {
    while (text.length < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      text += utf8.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, MAX_ERROR_BODY);
}

/** The message of the error envelopes backends use: `{error: {message}}`, `{error: "..."}`, `{message}`. */
function errorMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() === '' ? undefined : text.trim().slice(0, 500);
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

export type { CompletionInput };

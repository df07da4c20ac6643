// The three raw backend kinds, guessing one from a URL, and the two calls the gateway makes to any of them: a streamed
// completion and a token count.
import { fail } from '../core/failure.js';
import { llamacppBackend } from './llamacpp.js';
import { ollamaGenerateBackend } from './ollama-generate.js';
import { openaiCompletionsBackend } from './openai-completions.js';
import { TruncatedStreamError, type BackendChunk, type BackendKind, type BackendProtocol, type BackendTarget, type CompletionInput } from './types.js';
import { boundedText, UpstreamCall } from './upstream-call.js';
import { clipForMessage } from '../../util/utf16.js';

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

/**
 * Posts the completion request and resolves once the backend answered 2xx, with its decoded chunks. Failures before
 * that reject with a GatewayFailure (unreachable, timeout, HTTP error with the backend's message, context overflow);
 * failures while reading throw one from the iterator. A client abort (`signal`) ends the iteration with an AbortError.
 */
export async function openCompletion<Input = CompletionInput, Chunk = BackendChunk>(target: BackendTarget<Input, Chunk>, input: Input, signal: AbortSignal): Promise<AsyncIterable<Chunk>> {
  const call = new UpstreamCall(target as BackendTarget<unknown, unknown>, signal);
  let response: Response;
  try {
    response = await call.post(target.protocol.buildRequest(target.base, input), 'text/event-stream, application/x-ndjson');
    if (!response.body) throw fail('UPSTREAM_PROTOCOL', 'the backend answered without a body');
  } catch (error) {
    call.release();
    throw call.explain(error, 'connect');
  }
  const stream = response.body;
  return (async function* chunks() {
    let decoded = 0;
    // SSE readers skip lines that are not SSE fields, so a 200 carrying an HTML page (a proxy's login or error page),
    // one JSON answer or nothing decodes to no events: said as such, not as a cut-off or empty answer.
    const noEvents = () => fail('UPSTREAM_PROTOCOL', `the backend answered ${response.status} (${response.headers.get('content-type') ?? 'no content-type'}) with no ${target.protocol.kind} events`);
    try {
      call.arm();
      // The idle timer waits for the next decoded chunk, not the next bytes: a backend (or a proxy before it) that
      // sends only keep-alive comments or blank lines is silent, and would otherwise hold the request forever.
      for await (const chunk of target.protocol.decodeStream(readBody(stream))) {
        call.arm();
        decoded++;
        yield chunk;
      }
      if (decoded === 0) throw noEvents();
    } catch (error) {
      if (decoded === 0 && error instanceof TruncatedStreamError) throw noEvents();
      throw call.explain(error, 'stream');
    } finally {
      call.release();
      // Ends the upstream request when the consumer stops early (client gone, or enough read).
      if (!call.upstream.signal.aborted) call.upstream.abort();
    }
  })();
}

/** Token counts are small JSON answers (llama.cpp lists the ids: ~10 bytes a token); past this the answer is refused. */
const MAX_TOKENIZE_ANSWER = 64 * 1024 * 1024;

/**
 * The tokens `text` makes in the backend's own tokenizer, by its tokenizer endpoint. A backend kind without one
 * (Ollama) rejects with NOT_FOUND; the other failures are openCompletion's.
 */
export async function countTokens(target: BackendTarget & { protocol: BackendProtocol }, text: string, model: string, signal: AbortSignal): Promise<number> {
  const tokenize = target.protocol.tokenize;
  if (!tokenize) throw fail('NOT_FOUND', `a ${target.protocol.kind} backend has no tokenizer endpoint to count tokens with`);
  const call = new UpstreamCall(target as BackendTarget<unknown, unknown>, signal);
  let phase: 'connect' | 'answer' = 'connect';
  try {
    const response = await call.post(tokenize.buildRequest(target.base, text, model), 'application/json');
    phase = 'answer';
    const answer = await boundedText(response, MAX_TOKENIZE_ANSWER);
    let count: number | undefined;
    try {
      count = tokenize.readCount(JSON.parse(answer));
    } catch {
      count = undefined;
    }
    if (count === undefined) throw fail('UPSTREAM_PROTOCOL', `the backend's tokenizer answer is not ${target.protocol.kind}'s: ${clipForMessage(answer, 200, JSON.stringify)}`);
    return count;
  } catch (error) {
    throw call.explain(error, phase);
  } finally {
    call.release();
  }
}

/** A body's bytes via its reader (not every browser can iterate a ReadableStream). */
async function* readBody(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export type { CompletionInput };

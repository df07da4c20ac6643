// What every backend kind does: build one HTTP request from a rendered prompt, and decode its stream into text.
// Parsing never happens here: a backend yields only text, why it stopped, and the token counts it reported.
import type { SamplingOptions, Usage } from '../core/types.js';

export type BackendKind = 'llama.cpp' | 'openai' | 'ollama';
export const backendKinds: readonly BackendKind[] = ['llama.cpp', 'openai', 'ollama'];

/** Why the backend stopped, in its own words (`raw`) and as `stop` or `length`. */
export interface BackendStop {
  reason: 'stop' | 'length';
  raw: string;
  /** The stop string the backend matched, when it says which (llama.cpp's `stopping_word`, vLLM's `stop_reason`). */
  word?: string;
}

export interface BackendChunk {
  text?: string;
  stop?: BackendStop;
  usage?: Usage;
}

export interface CompletionInput {
  prompt: string;
  /** The family's stop strings followed by the client's. */
  stop: string[];
  sampling: SamplingOptions;
  /** The model name sent to backends that need one (OpenAI-style, Ollama). */
  model: string;
}

export interface HttpRequestSpec {
  url: string;
  body: Record<string, unknown>;
}

/** An upstream HTTP API that streams: one request out, decoded chunks in. */
export interface StreamProtocol<Input, Chunk> {
  /** For messages: `llama.cpp`, `openai`, `ollama`, `openai-chat` (repair mode). */
  readonly kind: string;
  /** `base` is the `--backend` URL as given (no trailing slash). The request always streams. */
  buildRequest(base: string, input: Input): HttpRequestSpec;
  /** Decodes the response body. Throws MalformedLineError / MalformedChunkError on bytes that are not the protocol. */
  decodeStream(body: AsyncIterable<Uint8Array>): AsyncIterable<Chunk>;
}

/** How a backend counts the tokens of a text: its own tokenizer endpoint, when it has one. */
export interface TokenizeProtocol {
  /** `text` is a whole rendered prompt, counted as the completion endpoint would tokenize it (special tokens parsed). */
  buildRequest(base: string, text: string, model: string): HttpRequestSpec;
  /** The count from the endpoint's JSON answer; undefined when the answer is not that endpoint's shape. */
  readCount(body: unknown): number | undefined;
}

/** A raw completion backend. */
export interface BackendProtocol extends StreamProtocol<CompletionInput, BackendChunk> {
  readonly kind: BackendKind;
  /** Absent when the backend kind has no tokenizer endpoint (Ollama). */
  readonly tokenize?: TokenizeProtocol;
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

export class MalformedChunkError extends Error {}

/**
 * The body ended cleanly before the protocol's end event (llama.cpp's `stop: true`, Ollama's `done: true`, an
 * OpenAI-style `finish_reason` or `[DONE]`). A server that stops mid-answer (killed, restarted, a proxy's timeout)
 * can end its chunked body so; read as the end it would be a cut-off answer reported as complete.
 */
export class TruncatedStreamError extends MalformedChunkError {
  constructor(endEvent: string) {
    super(`the stream ended before ${endEvent}: the answer was cut off`);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

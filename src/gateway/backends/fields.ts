// The pieces every backend kind spells alike but names differently: sampling fields, why it stopped, token counts,
// and the OpenAI-style SSE event stream that both `/completions` and the chat upstream speak.
import type { SamplingOptions, Usage } from '../core/types.js';
import { parseJsonLine } from '../wire/ndjson.js';
import { readSse } from '../wire/sse.js';
import { isRecord, MalformedChunkError, numberOr, TruncatedStreamError, type BackendStop } from './types.js';

/** Where a backend's API names the sampling fields it takes; a field without a name here is not sent. */
export interface SamplingNames {
  maxTokens: string;
  topK?: string;
}

/** The sampling fields the client set, under the backend's names; a field the client left out stays the server's default. */
export function samplingFields(sampling: SamplingOptions, names: SamplingNames): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (sampling.maxTokens !== undefined) fields[names.maxTokens] = sampling.maxTokens;
  if (sampling.temperature !== undefined) fields.temperature = sampling.temperature;
  if (sampling.topP !== undefined) fields.top_p = sampling.topP;
  if (names.topK !== undefined && sampling.topK !== undefined) fields[names.topK] = sampling.topK;
  if (sampling.seed !== undefined) fields.seed = sampling.seed;
  return fields;
}

/**
 * A backend's own stop word (or `fallback` when it gave none), read as a token-budget end when it is `lengthWord`.
 * `matched` is the stop string it reports having matched; anything but a non-empty string (vLLM sends a token id
 * for a stop token, null at EOS) says nothing about which one.
 */
export function backendStop(raw: unknown, fallback: string, lengthWord: string, matched?: unknown): BackendStop {
  const word = typeof raw === 'string' ? raw : fallback;
  const stop: BackendStop = { reason: word === lengthWord ? 'length' : 'stop', raw: word };
  if (typeof matched === 'string' && matched !== '') stop.word = matched;
  return stop;
}

/** Token counts as the backend reported them; a count it left out or garbled is 0. */
export function usageOf(promptTokens: unknown, completionTokens: unknown): Usage {
  return { promptTokens: numberOr(promptTokens, 0), completionTokens: numberOr(completionTokens, 0) };
}

/**
 * An error the backend reported in place of a chunk, after its 200: llama.cpp and vLLM send `{error: {message, ...}}`,
 * Ollama `{error: "..."}`, and servers copy each other's shape, so every kind takes both. Read as a chunk it would
 * have no text, and the answer would end as if complete.
 */
export function throwReportedError(chunk: Record<string, unknown>): void {
  const error = chunk.error;
  if (error === undefined || error === null) return;
  const message = typeof error === 'string' ? error : isRecord(error) && typeof error.message === 'string' ? error.message : 'unknown';
  throw new MalformedChunkError(`the backend reported an error mid-stream: ${message}`);
}

/**
 * The JSON objects of an OpenAI-style SSE stream up to `[DONE]`, with the first choice picked out. An event that is
 * not an object, or an `error` object mid-stream, ends the stream as malformed (`what` names the event in the message).
 * A body that ends without `[DONE]` is complete when a `finish_reason` came (some servers omit `[DONE]`; the usage
 * chunk follows the finish), and cut off when none did. Choices after the finish are not read.
 */
export async function* openaiEvents(body: AsyncIterable<Uint8Array>, what: string): AsyncGenerator<{ chunk: Record<string, unknown>; choice?: Record<string, unknown> }> {
  let finished = false;
  for await (const event of readSse(body)) {
    if (event.data.trim() === '[DONE]') return;
    const chunk = parseJsonLine(event.data);
    if (!isRecord(chunk)) throw new MalformedChunkError(`${what} that is not a JSON object`);
    throwReportedError(chunk);
    // After its finish the choice has said all it will: a later chunk counts only for its usage.
    const choice = !finished && Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
    if (typeof choice?.finish_reason === 'string') finished = true;
    yield { chunk, choice };
  }
  if (!finished) throw new TruncatedStreamError('a `finish_reason` or `[DONE]`');
}

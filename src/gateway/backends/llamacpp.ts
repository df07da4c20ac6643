// llama.cpp's native `POST /completion`: SSE of `{content, stop, ...}`; the last event carries `stop: true`,
// `stop_type` and the token counts.
import { parseJsonLine } from '../wire/ndjson.js';
import { readSse } from '../wire/sse.js';
import { isRecord, MalformedChunkError, numberOr, type BackendChunk, type BackendProtocol, type BackendStop, type CompletionInput } from './types.js';

export const llamacppBackend: BackendProtocol = {
  kind: 'llama.cpp',
  buildRequest(base: string, input: CompletionInput) {
    const { sampling } = input;
    const body: Record<string, unknown> = { prompt: input.prompt, stream: true, stop: input.stop, cache_prompt: true };
    if (sampling.maxTokens !== undefined) body.n_predict = sampling.maxTokens;
    if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
    if (sampling.topP !== undefined) body.top_p = sampling.topP;
    if (sampling.topK !== undefined) body.top_k = sampling.topK;
    if (sampling.seed !== undefined) body.seed = sampling.seed;
    const format = sampling.responseFormat;
    if (format?.type === 'json_schema') body.json_schema = format.schema;
    else if (format?.type === 'json_object') body.json_schema = {};
    return { url: `${base}/completion`, body };
  },
  async *decodeStream(body) {
    for await (const event of readSse(body)) {
      const chunk = parseJsonLine(event.data);
      if (!isRecord(chunk)) throw new MalformedChunkError('a /completion event that is not a JSON object');
      const out: BackendChunk = {};
      if (typeof chunk.content === 'string' && chunk.content !== '') out.text = chunk.content;
      if (chunk.stop === true) {
        out.stop = mapStop(chunk.stop_type);
        out.usage = { promptTokens: numberOr(chunk.tokens_evaluated, 0), completionTokens: numberOr(chunk.tokens_predicted, 0) };
      }
      yield out;
    }
  },
};

/** `limit` is the token budget; `eos`, `word` (a stop string) and `none` are a natural end. */
export function mapStop(stopType: unknown): BackendStop {
  const raw = typeof stopType === 'string' ? stopType : 'eos';
  return { reason: raw === 'limit' ? 'length' : 'stop', raw };
}

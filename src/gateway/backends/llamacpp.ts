// llama.cpp's native `POST /completion`: SSE of `{content, stop, ...}`; the last event carries `stop: true`,
// `stop_type` and the token counts.
import { parseJsonLine } from '../wire/ndjson.js';
import { readSse } from '../wire/sse.js';
import { backendStop, samplingFields, throwReportedError, usageOf } from './fields.js';
import { isRecord, MalformedChunkError, TruncatedStreamError, type BackendChunk, type BackendProtocol, type CompletionInput } from './types.js';

export const llamacppBackend: BackendProtocol = {
  kind: 'llama.cpp',
  buildRequest(base: string, input: CompletionInput) {
    const { sampling } = input;
    const body: Record<string, unknown> = {
      prompt: input.prompt, stream: true, stop: input.stop, cache_prompt: true,
      ...samplingFields(sampling, { maxTokens: 'n_predict', topK: 'top_k' }),
    };
    const format = sampling.responseFormat;
    if (format?.type === 'json_schema') body.json_schema = format.schema;
    else if (format?.type === 'json_object') body.json_schema = {};
    return { url: `${base}/completion`, body };
  },
  tokenize: {
    // As /completion reads a prompt: special-token text becomes special tokens, and the model's BOS is added when its
    // vocabulary asks for one, so the count is the prompt's `tokens_evaluated`.
    buildRequest: (base, text) => ({ url: `${base}/tokenize`, body: { content: text, add_special: true, parse_special: true } }),
    readCount: (body) => (isRecord(body) && Array.isArray(body.tokens) ? body.tokens.length : undefined),
  },
  async *decodeStream(body) {
    for await (const event of readSse(body)) {
      const chunk = parseJsonLine(event.data);
      if (!isRecord(chunk)) throw new MalformedChunkError('a /completion event that is not a JSON object');
      throwReportedError(chunk);
      const out: BackendChunk = {};
      if (typeof chunk.content === 'string' && chunk.content !== '') out.text = chunk.content;
      if (chunk.stop === true) {
        // `limit` is the token budget; `eos`, `word` (a stop string, named in `stopping_word`) and `none` are a natural end.
        out.stop = backendStop(chunk.stop_type, 'eos', 'limit', chunk.stop_type === 'word' ? chunk.stopping_word : undefined);
        out.usage = usageOf(chunk.tokens_evaluated, chunk.tokens_predicted);
        // The last event: anything after it is not this answer's text.
        yield out;
        return;
      }
      yield out;
    }
    throw new TruncatedStreamError('its last event (`stop: true`)');
  },
};

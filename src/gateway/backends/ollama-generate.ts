// Ollama's `POST /api/generate` with `raw: true` (the prompt is used as is, no Ollama template): NDJSON of
// `{response, done}`; the last line has `done: true`, `done_reason` and the token counts.
import { readNdjson } from '../wire/ndjson.js';
import { backendStop, samplingFields, throwReportedError, usageOf } from './fields.js';
import { isRecord, MalformedChunkError, TruncatedStreamError, type BackendChunk, type BackendProtocol, type CompletionInput } from './types.js';

export const ollamaGenerateBackend: BackendProtocol = {
  kind: 'ollama',
  buildRequest(base: string, input: CompletionInput) {
    const { sampling } = input;
    const options = { stop: input.stop, ...samplingFields(sampling, { maxTokens: 'num_predict', topK: 'top_k' }) };
    const body: Record<string, unknown> = { model: input.model, prompt: input.prompt, raw: true, stream: true, options };
    const format = sampling.responseFormat;
    if (format?.type === 'json_schema') body.format = format.schema;
    else if (format?.type === 'json_object') body.format = 'json';
    return { url: `${base}/api/generate`, body };
  },
  async *decodeStream(body) {
    for await (const line of readNdjson(body)) {
      if (!isRecord(line)) throw new MalformedChunkError('an /api/generate line that is not a JSON object');
      throwReportedError(line);
      const out: BackendChunk = {};
      if (typeof line.response === 'string' && line.response !== '') out.text = line.response;
      if (line.done === true) {
        out.stop = backendStop(line.done_reason, 'stop', 'length');
        out.usage = usageOf(line.prompt_eval_count, line.eval_count);
        // The last line: anything after it is not this answer's text.
        yield out;
        return;
      }
      yield out;
    }
    throw new TruncatedStreamError('its last line (`done: true`)');
  },
};

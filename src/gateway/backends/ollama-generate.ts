// Ollama's `POST /api/generate` with `raw: true` (the prompt is used as is, no Ollama template): NDJSON of
// `{response, done}`; the last line has `done: true`, `done_reason` and the token counts.
import { readNdjson } from '../wire/ndjson.js';
import { isRecord, MalformedChunkError, numberOr, type BackendChunk, type BackendProtocol, type BackendStop, type CompletionInput } from './types.js';

export const ollamaGenerateBackend: BackendProtocol = {
  kind: 'ollama',
  buildRequest(base: string, input: CompletionInput) {
    const { sampling } = input;
    const options: Record<string, unknown> = { stop: input.stop };
    if (sampling.maxTokens !== undefined) options.num_predict = sampling.maxTokens;
    if (sampling.temperature !== undefined) options.temperature = sampling.temperature;
    if (sampling.topP !== undefined) options.top_p = sampling.topP;
    if (sampling.topK !== undefined) options.top_k = sampling.topK;
    if (sampling.seed !== undefined) options.seed = sampling.seed;
    const body: Record<string, unknown> = { model: input.model, prompt: input.prompt, raw: true, stream: true, options };
    const format = sampling.responseFormat;
    if (format?.type === 'json_schema') body.format = format.schema;
    else if (format?.type === 'json_object') body.format = 'json';
    return { url: `${base}/api/generate`, body };
  },
  async *decodeStream(body) {
    for await (const line of readNdjson(body)) {
      if (!isRecord(line)) throw new MalformedChunkError('an /api/generate line that is not a JSON object');
      if (typeof line.error === 'string') throw new MalformedChunkError(`the backend reported an error mid-stream: ${line.error}`);
      const out: BackendChunk = {};
      if (typeof line.response === 'string' && line.response !== '') out.text = line.response;
      if (line.done === true) {
        out.stop = mapStop(line.done_reason);
        out.usage = { promptTokens: numberOr(line.prompt_eval_count, 0), completionTokens: numberOr(line.eval_count, 0) };
      }
      yield out;
    }
  },
};

export function mapStop(doneReason: unknown): BackendStop {
  const raw = typeof doneReason === 'string' ? doneReason : 'stop';
  return { reason: raw === 'length' ? 'length' : 'stop', raw };
}

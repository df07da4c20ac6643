// OpenAI-style `POST <base>/completions` (vLLM, SGLang, llama.cpp, LM Studio, TGI): SSE of
// `{choices: [{text, finish_reason}]}`, a usage chunk when asked for, then `[DONE]`.
import { parseJsonLine } from '../wire/ndjson.js';
import { readSse } from '../wire/sse.js';
import { isRecord, MalformedChunkError, numberOr, type BackendChunk, type BackendProtocol, type BackendStop, type CompletionInput } from './types.js';

export const openaiCompletionsBackend: BackendProtocol = {
  kind: 'openai',
  buildRequest(base: string, input: CompletionInput) {
    const { sampling } = input;
    const body: Record<string, unknown> = {
      model: input.model,
      prompt: input.prompt,
      stream: true,
      stream_options: { include_usage: true },
      // OpenAI-style servers take at most four stop strings in some builds; the parser ends at the family's own
      // markers anyway, so the first ones matter most.
      stop: input.stop,
    };
    if (sampling.maxTokens !== undefined) body.max_tokens = sampling.maxTokens;
    if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
    if (sampling.topP !== undefined) body.top_p = sampling.topP;
    if (sampling.topK !== undefined) body.top_k = sampling.topK;
    if (sampling.seed !== undefined) body.seed = sampling.seed;
    const format = sampling.responseFormat;
    // vLLM's guided decoding names; servers that do not know them ignore them.
    if (format?.type === 'json_schema') body.guided_json = format.schema;
    else if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
    return { url: `${base}/completions`, body };
  },
  async *decodeStream(body) {
    for await (const event of readSse(body)) {
      if (event.data.trim() === '[DONE]') return;
      const chunk = parseJsonLine(event.data);
      if (!isRecord(chunk)) throw new MalformedChunkError('a /completions chunk that is not a JSON object');
      if (isRecord(chunk.error)) throw new MalformedChunkError(`the backend reported an error mid-stream: ${String(chunk.error.message ?? 'unknown')}`);
      const out: BackendChunk = {};
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
      if (choice) {
        if (typeof choice.text === 'string' && choice.text !== '') out.text = choice.text;
        if (typeof choice.finish_reason === 'string') out.stop = mapStop(choice.finish_reason);
      }
      if (isRecord(chunk.usage)) {
        out.usage = { promptTokens: numberOr(chunk.usage.prompt_tokens, 0), completionTokens: numberOr(chunk.usage.completion_tokens, 0) };
      }
      yield out;
    }
  },
};

export function mapStop(finishReason: string): BackendStop {
  return { reason: finishReason === 'length' ? 'length' : 'stop', raw: finishReason };
}

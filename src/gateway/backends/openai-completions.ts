// OpenAI-style `POST <base>/completions` (vLLM, SGLang, llama.cpp, LM Studio, TGI): SSE of
// `{choices: [{text, finish_reason}]}`, a usage chunk when asked for, then `[DONE]`.
import { backendStop, openaiEvents, samplingFields, usageOf } from './fields.js';
import { isRecord, type BackendChunk, type BackendProtocol, type CompletionInput } from './types.js';

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
      ...samplingFields(sampling, { maxTokens: 'max_tokens', topK: 'top_k' }),
    };
    const format = sampling.responseFormat;
    // vLLM's guided decoding names; servers that do not know them ignore them.
    if (format?.type === 'json_schema') body.guided_json = format.schema;
    else if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
    return { url: `${base}/completions`, body };
  },
  tokenize: {
    // vLLM and SGLang serve `POST /tokenize` beside `/v1`, not under it; special tokens are added as /completions adds them.
    buildRequest: (base, text, model) => ({ url: `${base.replace(/\/v1$/, '')}/tokenize`, body: { model, prompt: text, add_special_tokens: true } }),
    readCount: (body) => {
      if (!isRecord(body)) return undefined;
      if (typeof body.count === 'number') return body.count;
      return Array.isArray(body.tokens) ? body.tokens.length : undefined;
    },
  },
  async *decodeStream(body) {
    for await (const { chunk, choice } of openaiEvents(body, 'a /completions chunk')) {
      const out: BackendChunk = {};
      if (choice) {
        if (typeof choice.text === 'string' && choice.text !== '') out.text = choice.text;
        if (typeof choice.finish_reason === 'string') out.stop = backendStop(choice.finish_reason, 'stop', 'length', choice.stop_reason);
      }
      if (isRecord(chunk.usage)) out.usage = usageOf(chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
      yield out;
    }
  },
};

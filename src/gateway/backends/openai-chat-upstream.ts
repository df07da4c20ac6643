// Repair mode's upstream: an OpenAI-compatible chat endpoint (`POST <base>/chat/completions`, streamed). The
// server renders and parses itself; the gateway keeps its native calls and re-parses the text it failed to split.
import type { GatewayRequest, Usage } from '../core/types.js';
import { backendStop, openaiEvents, samplingFields, usageOf } from './fields.js';
import { isRecord, type BackendStop, type StreamProtocol } from './types.js';

export interface ChatUpstreamChunk {
  content?: string;
  reasoning?: string;
  /** Native call fragments, as the server streams them (by `index`; the first carries id and name). */
  calls?: Array<{ index: number; id?: string; name?: string; arguments?: string }>;
  stop?: BackendStop;
  usage?: Usage;
}

export const openaiChatUpstream: StreamProtocol<GatewayRequest, ChatUpstreamChunk> = {
  kind: 'openai-chat',
  buildRequest(base, request) {
    const { sampling } = request;
    const body: Record<string, unknown> = {
      model: request.model,
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
      ...samplingFields(sampling, { maxTokens: 'max_tokens' }),
    };
    if (request.tools.length > 0) {
      body.tools = request.tools;
      body.tool_choice = typeof request.toolChoice === 'object' ? { type: 'function', function: { name: request.toolChoice.name } } : request.toolChoice;
      body.parallel_tool_calls = request.parallelToolCalls;
    }
    if (sampling.stop) body.stop = sampling.stop;
    const format = sampling.responseFormat;
    if (format?.type === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: format.name ?? 'response', schema: format.schema } };
    else if (format) body.response_format = { type: format.type };
    if (Object.keys(request.templateVariables).length > 0) body.chat_template_kwargs = request.templateVariables;
    return { url: `${base}/chat/completions`, body };
  },
  async *decodeStream(body) {
    for await (const { chunk, choice } of openaiEvents(body, 'a chat chunk')) {
      const out: ChatUpstreamChunk = {};
      const delta = choice && isRecord(choice.delta) ? choice.delta : undefined;
      if (delta) {
        if (typeof delta.content === 'string' && delta.content !== '') out.content = delta.content;
        // llama.cpp and DeepSeek say reasoning_content, vLLM and Ollama's /v1 say reasoning.
        const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning;
        if (typeof reasoning === 'string' && reasoning !== '') out.reasoning = reasoning;
        if (Array.isArray(delta.tool_calls)) out.calls = delta.tool_calls.filter(isRecord).map(readCallPart);
      }
      if (choice && typeof choice.finish_reason === 'string') out.stop = backendStop(choice.finish_reason, 'stop', 'length', choice.stop_reason);
      if (isRecord(chunk.usage)) out.usage = usageOf(chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
      yield out;
    }
  },
};

function readCallPart(part: Record<string, unknown>): NonNullable<ChatUpstreamChunk['calls']>[number] {
  const fn = isRecord(part.function) ? part.function : {};
  return {
    index: typeof part.index === 'number' ? part.index : 0,
    ...(typeof part.id === 'string' ? { id: part.id } : {}),
    ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
    // Arguments are JSON text on the wire; a server that sends the object itself (as Ollama's native API does) still
    // means those arguments, which would otherwise be dropped.
    ...(typeof fn.arguments === 'string' ? { arguments: fn.arguments } : isRecord(fn.arguments) ? { arguments: JSON.stringify(fn.arguments) } : {}),
  };
}

// OpenAI Chat Completions (`POST /v1/chat/completions`): the request reader is openai-chat-request.ts; this file
// writes the stream in the order api.openai.com sends it (../shared/wire/streams/openai-chat), the aggregate body,
// and OpenAI's error envelope. Diagnostics travel in a `chatfmt_diagnostics` extension field.
import { STATUS_OF } from '../core/failure.js';
import type { FinishReason, Frame, GatewayError, GatewayEvent, Protocol, ResponseMeta, Usage } from '../core/types.js';
import type { Diagnostic } from '../../types.js';
import { parseChatRequest } from './openai-chat-request.js';

type ChatFinishReason = 'stop' | 'length' | 'tool_calls';

export function mapFinishReason(reason: FinishReason): ChatFinishReason {
  return reason === 'tool-calls' ? 'tool_calls' : reason === 'length' ? 'length' : 'stop';
}

function usageBody(usage: Usage) {
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
}

function reasoningFields(meta: ResponseMeta, text: string | null): Record<string, string | null> {
  if (meta.reasoningField === 'both') return { reasoning_content: text, reasoning: text };
  return { [meta.reasoningField]: text };
}

function createWriter(meta: ResponseMeta): (event: GatewayEvent) => Frame[] {
  let head = { id: '', object: 'chat.completion.chunk', created: 0, model: meta.model };
  // The first chunk carries the role, as api.openai.com sends it: a text answer opens with an empty content (then its
  // text), a call opens in the same delta as the role with content null, reasoning opens empty like DeepSeek's.
  let roleSent = false;
  const chunk = (delta: Record<string, unknown>, finishReason: ChatFinishReason | null = null): Frame => ({
    data: JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] }),
  });
  const opening = (first: 'text' | 'reasoning' | 'call'): Frame[] => {
    if (roleSent) return [];
    roleSent = true;
    if (first === 'text') return [chunk({ role: 'assistant', content: '', refusal: null })];
    if (first === 'reasoning') return [chunk({ role: 'assistant', content: null, ...reasoningFields(meta, '') })];
    return [];
  };
  return (event) => {
    switch (event.type) {
      case 'start':
        head = { id: `chatcmpl-${event.responseId}`, object: 'chat.completion.chunk', created: event.created, model: event.model };
        return [];
      case 'text-delta':
        return [...opening('text'), chunk({ content: event.delta })];
      case 'reasoning-delta':
        return [...opening('reasoning'), chunk(reasoningFields(meta, event.delta))];
      case 'tool-call-start': {
        const call = { tool_calls: [{ index: event.index, id: event.callId, type: 'function', function: { name: event.name, arguments: '' } }] };
        if (roleSent) return [chunk(call)];
        roleSent = true;
        return [chunk({ role: 'assistant', content: null, ...call, refusal: null })];
      }
      case 'tool-call-delta':
        return [chunk({ tool_calls: [{ index: event.index, function: { arguments: event.delta } }] })];
      case 'diagnostic':
        return [{ data: JSON.stringify({ ...head, choices: [], chatfmt_diagnostics: [event.diagnostic] }) }];
      case 'finish': {
        const frames = [...opening('text'), chunk({}, mapFinishReason(event.reason))];
        if (meta.includeUsage && event.usage) frames.push({ data: JSON.stringify({ ...head, choices: [], usage: usageBody(event.usage) }) });
        frames.push({ data: '[DONE]' });
        return frames;
      }
      default:
        return [];
    }
  };
}

function aggregate(events: readonly GatewayEvent[], meta: ResponseMeta): unknown {
  let id = '';
  let created = 0;
  let model = meta.model;
  const content: string[] = [];
  const reasoning: string[] = [];
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  const diagnostics: Diagnostic[] = [];
  let finish: ChatFinishReason = 'stop';
  let usage: Usage | undefined;
  for (const event of events) {
    if (event.type === 'start') [id, created, model] = [`chatcmpl-${event.responseId}`, event.created, event.model];
    else if (event.type === 'text-delta') content.push(event.delta);
    else if (event.type === 'reasoning-delta') reasoning.push(event.delta);
    else if (event.type === 'tool-call-end') calls.push({ id: event.callId, type: 'function', function: { name: event.name, arguments: event.arguments } });
    else if (event.type === 'diagnostic') diagnostics.push(event.diagnostic);
    else if (event.type === 'finish') [finish, usage] = [mapFinishReason(event.reason), event.usage];
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    // As the stream has it (see opening): an answer with no text is '' unless a call or reasoning stands in for it.
    content: content.length > 0 ? content.join('') : calls.length > 0 || reasoning.length > 0 ? null : '',
    refusal: null,
    ...(reasoning.length > 0 ? reasoningFields(meta, reasoning.join('')) : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage: usageBody(usage) } : {}),
    ...(diagnostics.length > 0 ? { chatfmt_diagnostics: diagnostics } : {}),
  };
}

/** OpenAI's `type` and `code` for each failure kind. */
const OPENAI_ERROR: Record<GatewayError['code'], { type: string; code: string | null }> = {
  INVALID_REQUEST: { type: 'invalid_request_error', code: null },
  UNAUTHORIZED: { type: 'invalid_request_error', code: 'invalid_api_key' },
  NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  BODY_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  REQUEST_TIMEOUT: { type: 'invalid_request_error', code: 'request_timeout' },
  TOO_MANY_REQUESTS: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  CONTEXT_OVERFLOW: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  TEMPLATE_REJECTED: { type: 'invalid_request_error', code: 'template_rejected' },
  UPSTREAM_UNREACHABLE: { type: 'server_error', code: 'upstream_unreachable' },
  UPSTREAM_ERROR: { type: 'server_error', code: 'upstream_error' },
  UPSTREAM_TIMEOUT: { type: 'server_error', code: 'upstream_timeout' },
  UPSTREAM_PROTOCOL: { type: 'server_error', code: 'upstream_protocol_error' },
  INTERNAL: { type: 'server_error', code: null },
};

function errorBody(error: GatewayError) {
  const { type, code } = OPENAI_ERROR[error.code];
  const param = error.param ?? (error.code === 'CONTEXT_OVERFLOW' ? 'messages' : null);
  return { error: { message: error.message, type, param, code } };
}

function toHttpError(error: GatewayError): { status: number; body: unknown } {
  return { status: STATUS_OF[error.code], body: errorBody(error) };
}

/** A data frame with `error`: the openai SDK raises it as an APIError. No `[DONE]` follows. */
function toStreamError(error: GatewayError): Frame[] {
  return [{ data: JSON.stringify(errorBody(error)) }];
}

export const openaiChatProtocol: Protocol = {
  name: 'openai-chat',
  parseRequest: parseChatRequest,
  createWriter,
  aggregate,
  toHttpError,
  toStreamError,
};

// POST /v1/chat/completions bodies → GatewayRequest. OpenAI's field names and defaults; llama.cpp and vLLM's common
// extensions (top_k, chat_template_kwargs, continue_final_message) are read too.
import { GatewayFailure } from '../core/failure.js';
import type { GatewayError, GatewayRequest, Result, SamplingOptions, ToolChoice } from '../core/types.js';
import type { Message, Tool, ToolCall } from '../../types.js';
import { invalid, isObject, namedToolChoice, normaliseContent, numericSampling, optionalBoolean, optionalNumber, stopStrings, type Json } from './request-fields.js';

export function parseChatRequest(body: unknown): Result<GatewayRequest, GatewayError> {
  try {
    return { ok: true, value: readChatRequest(body) };
  } catch (error) {
    if (error instanceof GatewayFailure) return { ok: false, error: error.error };
    throw error;
  }
}

function readChatRequest(body: unknown): GatewayRequest {
  if (!isObject(body)) invalid('body', 'expected a JSON object');
  if (!Array.isArray(body.messages) || body.messages.length === 0) invalid('messages', 'expected a non-empty array of messages');
  // One completion per request: answering `n: 3` with one choice would break a client that reads choices[1].
  const choices = optionalNumber(body, 'n');
  if (choices !== undefined && choices !== 1) invalid('n', 'only one choice per request is served (n: 1)');
  const tools = readTools(body.tools);
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) invalid('stream_options', 'expected an object');
  const variables: Record<string, unknown> = {};
  if (isObject(body.chat_template_kwargs)) Object.assign(variables, body.chat_template_kwargs);
  else if (body.chat_template_kwargs !== undefined && body.chat_template_kwargs !== null) invalid('chat_template_kwargs', 'expected an object');
  if (typeof body.reasoning_effort === 'string') variables.reasoning_effort = body.reasoning_effort;
  return {
    model: typeof body.model === 'string' ? body.model : '',
    messages: body.messages.map((message, index) => readMessage(message, `messages[${index}]`)),
    tools,
    ...(Array.isArray(body.tools) ? { toolsSent: true } : {}),
    toolChoice: readToolChoice(body.tool_choice, tools),
    parallelToolCalls: optionalBoolean(body, 'parallel_tool_calls') ?? true,
    stream: optionalBoolean(body, 'stream') ?? false,
    sampling: readSampling(body),
    templateVariables: variables,
    continueFinalMessage: optionalBoolean(body, 'continue_final_message') ?? false,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
  };
}

function readMessage(value: unknown, path: string): Message {
  if (!isObject(value)) invalid(path, 'expected a message object');
  const role = value.role;
  if (role !== 'system' && role !== 'developer' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
    invalid(`${path}.role`, 'expected "system", "developer", "user", "assistant" or "tool"');
  }
  // Chat templates know `system`; OpenAI's `developer` means the same instructions.
  const message: Message = { role: role === 'developer' ? 'system' : role, content: normaliseContent(value.content, `${path}.content`) };
  if (typeof value.name === 'string') message.name = value.name;
  if (role === 'assistant') {
    const reasoning = value.reasoning_content ?? value.reasoning;
    if (typeof reasoning === 'string') message.reasoning_content = reasoning;
    if (value.tool_calls !== undefined && value.tool_calls !== null) {
      if (!Array.isArray(value.tool_calls)) invalid(`${path}.tool_calls`, 'expected an array');
      if (value.tool_calls.length > 0) message.tool_calls = value.tool_calls.map((call, k) => readCall(call, `${path}.tool_calls[${k}]`));
    }
  }
  if (role === 'tool') {
    if (typeof value.tool_call_id !== 'string') invalid(`${path}.tool_call_id`, 'expected the id of the call this result answers');
    message.tool_call_id = value.tool_call_id;
  }
  return message;
}

function readCall(value: unknown, path: string): ToolCall {
  if (!isObject(value) || !isObject(value.function)) invalid(path, 'expected {id, type: "function", function: {name, arguments}}');
  const fn = value.function;
  if (typeof fn.name !== 'string') invalid(`${path}.function.name`, 'expected a string');
  const args = fn.arguments ?? '{}';
  if (typeof args !== 'string' && !isObject(args)) invalid(`${path}.function.arguments`, 'expected a JSON string or an object');
  return { ...(typeof value.id === 'string' ? { id: value.id } : {}), type: 'function', function: { name: fn.name, arguments: args as string | Json } };
}

function readTools(value: unknown): Tool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) invalid('tools', 'expected an array of tools');
  return value.map((tool, index) => {
    const path = `tools[${index}]`;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) invalid(path, 'expected {type: "function", function: {name, parameters}}');
    if (typeof tool.function.name !== 'string' || tool.function.name === '') invalid(`${path}.function.name`, 'expected a non-empty string');
    return tool as Tool;
  });
}

function readToolChoice(value: unknown, tools: Tool[]): ToolChoice {
  if (value === undefined || value === null) return 'auto';
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isObject(value) && value.type === 'function' && isObject(value.function) && typeof value.function.name === 'string') {
    return namedToolChoice(value.function.name, tools, 'tool_choice.function.name');
  }
  return invalid('tool_choice', 'expected "auto", "none", "required" or {type: "function", function: {name}}');
}

function readSampling(body: Json): SamplingOptions {
  const sampling: SamplingOptions = numericSampling(body, { temperature: 'temperature', topP: 'top_p', topK: 'top_k', seed: 'seed' });
  const maxTokens = optionalNumber(body, 'max_completion_tokens') ?? optionalNumber(body, 'max_tokens');
  // llama.cpp's web UI sends -1 for "no limit".
  if (maxTokens !== undefined && maxTokens >= 0) sampling.maxTokens = maxTokens;
  const stop = stopStrings(body.stop, 'stop');
  if (stop) sampling.stop = stop;
  const format = body.response_format;
  if (format !== undefined && format !== null) {
    if (!isObject(format)) invalid('response_format', 'expected an object');
    if (format.type === 'text' || format.type === 'json_object') sampling.responseFormat = { type: format.type };
    else if (format.type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema)) {
      const name = typeof format.json_schema.name === 'string' ? format.json_schema.name : undefined;
      sampling.responseFormat = { type: 'json_schema', schema: format.json_schema.schema, ...(name ? { name } : {}) };
    } else invalid('response_format', 'expected {type: "text"}, {type: "json_object"} or {type: "json_schema", json_schema: {schema}}');
  }
  return sampling;
}

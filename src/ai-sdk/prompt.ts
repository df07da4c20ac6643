// AI SDK call options → the gateway's GatewayRequest: the prompt becomes chatfmt (OpenAI-style) messages, so the
// model's own template writes earlier calls, their results and reasoning back in the model's own format.
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { ChatfmtError } from '../errors.js';
import type { GatewayRequest, SamplingOptions, ToolChoice } from '../gateway/core/types.js';
import type { Message, Tool, ToolCall } from '../types.js';
import { jsonEqual } from '../util/json-equal.js';

/** What `providerOptions.chatfmt` may carry. */
export interface ChatfmtProviderOptions {
  /** Extra template variables (`enable_thinking`, `reasoning_effort`, …), as `chat_template_kwargs` would pass them. */
  templateVariables?: Record<string, unknown>;
}

export interface TranslatedCall {
  request: GatewayRequest;
  warnings: SharedV4Warning[];
}

/** The function tools of a call in OpenAI's shape; provider-defined tools are reported as unsupported. */
export function functionTools(options: Pick<LanguageModelV4CallOptions, 'tools'>, warnings: SharedV4Warning[] = []): Tool[] {
  const tools: Tool[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type !== 'function') {
      warnings.push({ type: 'unsupported', feature: `provider-defined tool ${tool.id}`, details: 'a raw completion endpoint runs no provider tools; it is left out' });
      continue;
    }
    // OpenAI's key order (name, description, parameters): templates that dump the tool as JSON print it in this order.
    const description = tool.description !== undefined ? { description: tool.description } : {};
    tools.push({ type: 'function', function: { name: tool.name, ...description, parameters: tool.inputSchema as Record<string, unknown> } });
  }
  return tools;
}

export function toGatewayRequest(options: LanguageModelV4CallOptions, modelId: string): TranslatedCall {
  const warnings: SharedV4Warning[] = [];
  const tools = functionTools(options, warnings);
  for (const feature of ['presencePenalty', 'frequencyPenalty'] as const) {
    if (options[feature] !== undefined) warnings.push({ type: 'unsupported', feature, details: 'not sent to raw completion backends' });
  }
  if (options.reasoning !== undefined && options.reasoning !== 'provider-default') {
    warnings.push({ type: 'unsupported', feature: 'reasoning', details: 'templates name this differently; pass providerOptions.chatfmt.templateVariables (enable_thinking, reasoning_effort)' });
  }
  const own = options.providerOptions?.chatfmt as ChatfmtProviderOptions | undefined;
  const variables = own?.templateVariables;
  return {
    request: {
      model: modelId,
      messages: toMessages(options.prompt, warnings),
      tools,
      ...(options.tools !== undefined ? { toolsSent: true } : {}),
      toolChoice: toolChoiceOf(options.toolChoice),
      parallelToolCalls: true,
      stream: true,
      sampling: samplingOf(options),
      templateVariables: typeof variables === 'object' && variables !== null ? { ...variables } : {},
      continueFinalMessage: false,
    },
    warnings,
  };
}

function toolChoiceOf(choice: LanguageModelV4CallOptions['toolChoice']): ToolChoice {
  if (choice === undefined) return 'auto';
  if (choice.type === 'tool') return { type: 'function', name: choice.toolName };
  return choice.type;
}

function samplingOf(options: LanguageModelV4CallOptions): SamplingOptions {
  const sampling: SamplingOptions = {};
  if (options.maxOutputTokens !== undefined) sampling.maxTokens = options.maxOutputTokens;
  if (options.temperature !== undefined) sampling.temperature = options.temperature;
  if (options.topP !== undefined) sampling.topP = options.topP;
  if (options.topK !== undefined) sampling.topK = options.topK;
  if (options.seed !== undefined) sampling.seed = options.seed;
  if (options.stopSequences !== undefined && options.stopSequences.length > 0) sampling.stop = [...options.stopSequences];
  const format = options.responseFormat;
  if (format?.type === 'json') {
    sampling.responseFormat = format.schema
      ? { type: 'json_schema', schema: format.schema as Record<string, unknown>, ...(format.name ? { name: format.name } : {}) }
      : { type: 'json_object' };
  }
  return sampling;
}

/**
 * The AI SDK prompt as chatfmt messages: assistant text, reasoning (`reasoning_content`) and calls (`tool_calls`,
 * arguments as JSON text) in one message; each tool result its own `role: 'tool'` message, as OpenAI sends them.
 */
export function toMessages(prompt: LanguageModelV4Prompt, warnings: SharedV4Warning[] = []): Message[] {
  const messages: Message[] = [];
  prompt.forEach((message, index) => messages.push(...convertMessage(message, index, warnings)));
  return messages;
}

/**
 * History a template cannot show (an assistant's files, a tool result's media) is left out with a warning, so the
 * caller learns the model did not see it; a user's file is refused instead, as it is the question itself.
 */
function leftOut(warnings: SharedV4Warning[], feature: string, where: string): void {
  warnings.push({ type: 'unsupported', feature, details: `a raw completion endpoint takes text only: ${where} is left out of the prompt` });
}

function convertMessage(message: LanguageModelV4Message, index: number, warnings: SharedV4Warning[]): Message[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }];
    case 'user': {
      const texts = message.content.map((part, k) => {
        if (part.type === 'text') return part.text;
        throw new ChatfmtError('INPUT_INVALID', `a raw completion endpoint takes text only: prompt[${index}].content[${k}] is a ${part.mediaType} file`);
      });
      return [{ role: 'user', content: texts.join('') }];
    }
    case 'assistant': {
      let text = '';
      let reasoning = '';
      const calls: ToolCall[] = [];
      const results: Message[] = [];
      message.content.forEach((part, k) => {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'reasoning') reasoning += part.text;
        else if (part.type === 'tool-call') calls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: argumentsText(part.input, part.providerOptions) } });
        else if (part.type === 'tool-result') results.push(toolMessage(part.toolCallId, part.toolName, part.output, `prompt[${index}].content[${k}]`, warnings));
        else leftOut(warnings, `${part.type} parts in assistant messages`, `prompt[${index}].content[${k}]`);
      });
      const assistant: Message = { role: 'assistant', content: text };
      if (reasoning !== '') assistant.reasoning_content = reasoning;
      if (calls.length > 0) assistant.tool_calls = calls;
      return [assistant, ...results];
    }
    case 'tool':
      return message.content.flatMap((part, k) => (part.type === 'tool-result' ? [toolMessage(part.toolCallId, part.toolName, part.output, `prompt[${index}].content[${k}]`, warnings)] : []));
  }
}

/**
 * The AI SDK hands parsed input back. The provider's tool-call parts carry the model's own text in
 * `providerMetadata.chatfmt.arguments` (the SDK returns it as providerOptions): written back as is while it still
 * means the same input, so templates that print arguments verbatim get the model's spacing and key order. A string
 * input is one that never parsed, kept as written.
 */
function argumentsText(input: unknown, options: SharedV4ProviderOptions | undefined): string {
  const own = options?.chatfmt?.arguments;
  if (typeof own === 'string' && sameInput(own, input)) return own;
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

function sameInput(text: string, input: unknown): boolean {
  if (typeof input === 'string') return text === input;
  try {
    return jsonEqual(JSON.parse(text), input);
  } catch {
    return false;
  }
}

function toolMessage(toolCallId: string, name: string, output: LanguageModelV4ToolResultOutput, where: string, warnings: SharedV4Warning[]): Message {
  if (output.type === 'content') {
    output.value.forEach((part, k) => {
      if (part.type !== 'text') leftOut(warnings, `${part.type} parts in tool results`, `${where}.output.value[${k}]`);
    });
  }
  return { role: 'tool', tool_call_id: toolCallId, name, content: outputText(output) };
}

function outputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'The tool execution was denied.';
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }
}

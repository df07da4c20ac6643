// OpenAI Responses request -> GatewayRequest. Responses is the stateless form here: the whole history comes in
// `input` as items (messages, function calls and their outputs, reasoning), which fold into chat messages: a
// reasoning item and the function calls after an assistant message belong to that assistant turn.
import type { Message, Tool, ToolCall } from '../../types.js';
import type { GatewayError, GatewayRequest, Result, SamplingOptions, ToolChoice } from '../core/types.js';
import {
  argumentsText, arrayAt, invalid, namedToolChoice, normaliseContent, numericSampling, objectAt, optionalBoolean, optionalString, readRequest,
  stringAt, type Json,
} from './request-fields.js';

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const REASONING_EFFORTS = new Set(['low', 'medium', 'high']);

export function parseResponsesRequest(body: unknown): Result<GatewayRequest, GatewayError> {
  return readRequest(() => {
    const request = objectAt(body, 'body');
    if (request.previous_response_id !== undefined && request.previous_response_id !== null) {
      invalid('previous_response_id', 'this gateway is stateless: send the whole conversation in input');
    }
    const messages: Message[] = [];
    const instructions = optionalString(request, 'instructions');
    if (instructions !== undefined) messages.push({ role: 'system', content: instructions });
    if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
    else new InputFolder(messages).addAll(arrayAt(request.input, 'input'));
    const tools = translateTools(request.tools);
    return {
      model: optionalString(request, 'model') ?? '',
      messages,
      tools,
      toolChoice: translateToolChoice(request.tool_choice, tools),
      parallelToolCalls: optionalBoolean(request, 'parallel_tool_calls') ?? true,
      stream: optionalBoolean(request, 'stream') ?? false,
      sampling: sampling(request),
      templateVariables: templateVariables(request),
      continueFinalMessage: false,
      echo: echoed(request),
    };
  });
}

/** The settings a Response object repeats from its request (openai's `Response` type has a field for each). */
const ECHOED_FIELDS = ['instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'temperature', 'top_p', 'max_output_tokens', 'metadata', 'reasoning', 'text', 'truncation', 'user'] as const;

function echoed(request: Json): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  for (const field of ECHOED_FIELDS) if (request[field] !== undefined && request[field] !== null) echo[field] = request[field];
  return echo;
}

/** Builds chat messages from input items, holding reasoning until the assistant turn it belongs to appears. */
class InputFolder {
  private pendingReasoning: string | undefined;

  constructor(private readonly messages: Message[]) {}

  addAll(items: unknown[]): void {
    items.forEach((item, i) => this.add(objectAt(item, `input[${i}]`), `input[${i}]`));
    // Reasoning with no assistant turn after it (the client replayed it last) is kept as an assistant turn of its own.
    if (this.pendingReasoning !== undefined) this.messages.push(this.takeReasoning({ role: 'assistant', content: null }));
  }

  private add(item: Json, path: string): void {
    const type = item.type ?? 'message';
    switch (type) {
      case 'message':
        return this.addMessage(item, path);
      case 'function_call':
        return this.addCall(item, path);
      case 'function_call_output':
        this.messages.push({
          role: 'tool',
          tool_call_id: stringAt(item.call_id, `${path}.call_id`),
          content: normaliseContent(item.output, `${path}.output`) ?? '',
        });
        return;
      case 'reasoning': {
        // An item with no readable text (only OpenAI's encrypted_content) adds nothing: an empty reasoning_content
        // would make some templates write an empty thinking block.
        const text = reasoningText(item, path);
        if (text !== '') this.pendingReasoning = this.pendingReasoning === undefined ? text : `${this.pendingReasoning}\n\n${text}`;
        return;
      }
      default:
        invalid(`${path}.type`, `an input item of type ${JSON.stringify(type)} is not supported`);
    }
  }

  private addMessage(item: Json, path: string): void {
    const role = stringAt(item.role, `${path}.role`);
    if (!ROLES.has(role)) invalid(`${path}.role`, "must be 'user', 'assistant', 'system' or 'developer'");
    const content = normaliseContent(item.content, `${path}.content`);
    if (role === 'assistant') this.messages.push(this.takeReasoning({ role, content }));
    // Chat templates know `system`; `developer` carries the same instructions (as the Chat front-end reads it).
    else this.messages.push({ role: role === 'developer' ? 'system' : role, content });
  }

  /** A function call joins the assistant turn just before it, or opens one (calls with no text before them). */
  private addCall(item: Json, path: string): void {
    const call: ToolCall = {
      id: stringAt(item.call_id, `${path}.call_id`),
      type: 'function',
      function: { name: stringAt(item.name, `${path}.name`), arguments: argumentsText(item.arguments, `${path}.arguments`) },
    };
    const last = this.messages[this.messages.length - 1];
    if (last?.role === 'assistant' && this.pendingReasoning === undefined) {
      last.tool_calls = [...(last.tool_calls ?? []), call];
      return;
    }
    this.messages.push(this.takeReasoning({ role: 'assistant', content: null, tool_calls: [call] }));
  }

  private takeReasoning(message: Message): Message {
    if (this.pendingReasoning !== undefined) message.reasoning_content = this.pendingReasoning;
    this.pendingReasoning = undefined;
    return message;
  }
}

/**
 * A reasoning item's text: its raw `reasoning_text` content when the client kept it (what this gateway sends),
 * else its summaries. `encrypted_content` is OpenAI's own and cannot be read.
 */
function reasoningText(item: Json, path: string): string {
  const content = item.content === undefined || item.content === null ? [] : arrayAt(item.content, `${path}.content`);
  const summary = item.summary === undefined || item.summary === null ? [] : arrayAt(item.summary, `${path}.summary`);
  const field = content.length > 0 ? 'content' : 'summary';
  return (content.length > 0 ? content : summary)
    .map((part, i) => stringAt(objectAt(part, `${path}.${field}[${i}]`).text, `${path}.${field}[${i}].text`))
    .join('\n\n');
}

function translateTools(value: unknown): Tool[] {
  if (value === undefined || value === null) return [];
  return arrayAt(value, 'tools').flatMap((item, i): Tool[] => {
    const tool = objectAt(item, `tools[${i}]`);
    // Hosted tools (web_search, file_search, local_shell, custom grammars) are run by OpenAI, not by a model
    // behind a completion endpoint; they stay out of the prompt.
    if (tool.type !== 'function') return [];
    // Responses tools are flat; a client that sends the Chat form ({function: {...}}) is read too.
    const fn = tool.function === undefined ? tool : objectAt(tool.function, `tools[${i}].function`);
    const at = tool.function === undefined ? `tools[${i}]` : `tools[${i}].function`;
    const description = optionalString(fn, 'description', `${at}.description`);
    const parameters = fn.parameters === undefined || fn.parameters === null ? undefined : objectAt(fn.parameters, `${at}.parameters`);
    return [{
      type: 'function',
      function: {
        name: stringAt(fn.name, `${at}.name`),
        ...(description === undefined ? {} : { description }),
        ...(parameters === undefined ? {} : { parameters }),
      },
    }];
  });
}

function translateToolChoice(value: unknown, tools: Tool[]): ToolChoice {
  if (value === undefined || value === null) return 'auto';
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const choice = objectAt(value, 'tool_choice');
  if (choice.type === 'function') return namedToolChoice(stringAt(choice.name, 'tool_choice.name'), tools, 'tool_choice.name');
  // allowed_tools and hosted-tool choices narrow what OpenAI may run; for a local model they mean "auto".
  if (typeof choice.type === 'string') return 'auto';
  return invalid('tool_choice', "must be 'auto', 'none', 'required' or {type: 'function', name}");
}

function sampling(request: Json): SamplingOptions {
  const options = numericSampling(request, { maxTokens: 'max_output_tokens', temperature: 'temperature', topP: 'top_p' });
  const format = request.text === undefined || request.text === null ? undefined : objectAt(request.text, 'text').format;
  if (format !== undefined && format !== null) {
    const spec = objectAt(format, 'text.format');
    if (spec.type === 'json_object') options.responseFormat = { type: 'json_object' };
    else if (spec.type === 'json_schema') {
      const name = optionalString(spec, 'name', 'text.format.name');
      options.responseFormat = { type: 'json_schema', schema: objectAt(spec.schema, 'text.format.schema'), ...(name === undefined ? {} : { name }) };
    }
  }
  return options;
}

function templateVariables(request: Json): Json {
  if (request.reasoning === undefined || request.reasoning === null) return {};
  const effort = objectAt(request.reasoning, 'reasoning').effort;
  return typeof effort === 'string' && REASONING_EFFORTS.has(effort) ? { reasoning_effort: effort } : {};
}

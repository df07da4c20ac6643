// Anthropic Messages request -> GatewayRequest. Anthropic splits one OpenAI assistant turn into typed blocks and puts
// tool results inside user turns; this file folds them back into chatfmt's message model, field by field.
import type { ContentPart, Message, Tool, ToolCall } from '../../types.js';
import type { GatewayError, GatewayRequest, Result, SamplingOptions, ToolChoice } from '../core/types.js';
import {
  arrayAt, invalid, namedToolChoice, normaliseContent, numericSampling, objectAt, optionalBoolean, optionalString, readRequest, stopStrings,
  stringAt, type Json,
} from './request-fields.js';

/**
 * Claude Code 2.1+ puts a billing pseudo-header first in `system` whose value changes on every request. It is meant
 * for Anthropic's front door, not the model, and leaving it in would change the prompt's first bytes each turn and
 * defeat the backend's prompt cache.
 */
const BILLING_HEADER_PREFIX = 'x-anthropic-billing-header:';

const REASONING_EFFORTS = new Set(['low', 'medium', 'high']);

export function parseAnthropicRequest(body: unknown): Result<GatewayRequest, GatewayError> {
  return readRequest(() => {
    const request = objectAt(body, 'body');
    const messages: Message[] = [];
    const system = systemText(request.system);
    if (system !== undefined) messages.push({ role: 'system', content: system });
    const turns = arrayAt(request.messages, 'messages');
    turns.forEach((turn, i) => messages.push(...translateTurn(turn, `messages[${i}]`)));
    const last = turns.length > 0 ? objectAt(turns[turns.length - 1], `messages[${turns.length - 1}]`) : undefined;
    const continueFinalMessage = last?.role === 'assistant';
    if (continueFinalMessage && messages[messages.length - 1]?.tool_calls) {
      invalid(`messages[${turns.length - 1}]`, 'a final assistant message (prefill) cannot contain tool_use blocks');
    }
    const tools = translateTools(request.tools);
    const { toolChoice, parallelToolCalls } = translateToolChoice(request.tool_choice, tools);
    return {
      model: optionalString(request, 'model') ?? '',
      messages,
      tools,
      toolChoice,
      parallelToolCalls,
      stream: optionalBoolean(request, 'stream') ?? false,
      sampling: sampling(request),
      templateVariables: templateVariables(request),
      continueFinalMessage,
    };
  });
}

function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system;
  const texts = arrayAt(system, 'system')
    .map((block, i) => stringAt(objectAt(block, `system[${i}]`).text, `system[${i}].text`))
    .filter((text) => !text.startsWith(BILLING_HEADER_PREFIX));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function translateTurn(value: unknown, path: string): Message[] {
  const turn = objectAt(value, path);
  const role = turn.role;
  if (role !== 'user' && role !== 'assistant') invalid(`${path}.role`, "must be 'user' or 'assistant'");
  if (typeof turn.content === 'string') return [{ role, content: turn.content }];
  const blocks = arrayAt(turn.content, `${path}.content`).map((block, i) => objectAt(block, `${path}.content[${i}]`));
  return role === 'assistant' ? [assistantTurn(blocks, path)] : userTurn(blocks, path);
}

function assistantTurn(blocks: Json[], path: string): Message {
  let text: string | null = null;
  let reasoning: string | undefined;
  const toolCalls: ToolCall[] = [];
  blocks.forEach((block, i) => {
    const at = `${path}.content[${i}]`;
    switch (block.type) {
      case 'text':
        text = (text ?? '') + stringAt(block.text, `${at}.text`);
        break;
      case 'thinking':
        // The signature is Anthropic's proof of its own reasoning; a local model has no use for it.
        reasoning = (reasoning ?? '') + stringAt(block.thinking, `${at}.thinking`);
        break;
      case 'redacted_thinking':
        break; // encrypted by Anthropic: nothing a local template could show
      case 'tool_use':
        toolCalls.push({
          id: stringAt(block.id, `${at}.id`),
          type: 'function',
          function: { name: stringAt(block.name, `${at}.name`), arguments: JSON.stringify(block.input ?? {}) },
        });
        break;
      default:
        // server_tool_use, web_search_tool_result and the other server-side blocks are Anthropic running its own
        // tools in an earlier turn: a history Claude Code replays, and nothing a local model can be shown to have done.
        if (typeof block.type !== 'string') invalid(`${at}.type`, 'expected a string');
    }
  });
  // A turn of calls alone has no text: null content, as an OpenAI client writes it.
  const message: Message = { role: 'assistant', content: text };
  if (reasoning !== undefined) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/**
 * Tool results come first, then the rest of the turn as one user message: chat templates expect a call's results
 * right after the assistant turn that made it, and Anthropic clients write the text that accompanies results
 * (`Here are the results:`) in the same user turn.
 */
function userTurn(blocks: Json[], path: string): Message[] {
  const results: Message[] = [];
  const parts: ContentPart[] = [];
  blocks.forEach((block, i) => {
    const at = `${path}.content[${i}]`;
    if (block.type === 'tool_result') results.push(toolResult(block, at));
    else if (block.type === 'text') parts.push({ type: 'text', text: stringAt(block.text, `${at}.text`) });
    else if (typeof block.type === 'string') parts.push(withoutCacheControl(block) as ContentPart);
    else invalid(`${at}.type`, 'expected a string');
  });
  if (parts.length === 0) return results;
  return [...results, { role: 'user', content: normaliseContent(parts, `${path}.content`) }];
}

function toolResult(block: Json, at: string): Message {
  const id = stringAt(block.tool_use_id, `${at}.tool_use_id`);
  const content = normaliseContent(block.content, `${at}.content`) ?? '';
  // OpenAI-style templates have no error flag on a tool message: the model learns of the failure from the words.
  const failed = optionalBoolean(block, 'is_error', `${at}.is_error`) === true;
  return { role: 'tool', tool_call_id: id, content: failed ? errorContent(content) : content };
}

function errorContent(content: string | ContentPart[]): string | ContentPart[] {
  if (typeof content === 'string') return `Error: ${content}`;
  return [{ type: 'text', text: 'Error:' }, ...content];
}

function withoutCacheControl(block: Json): Json {
  const { cache_control: _ignored, ...rest } = block;
  return rest;
}

function translateTools(value: unknown): Tool[] {
  if (value === undefined || value === null) return [];
  return arrayAt(value, 'tools').flatMap((item, i): Tool[] => {
    const tool = objectAt(item, `tools[${i}]`);
    // Anthropic server tools (web_search_…, bash_…) carry a dated type and no schema: Anthropic runs them, a local
    // model cannot, so they are left out of the prompt rather than failing the whole request.
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') return [];
    const description = optionalString(tool, 'description', `tools[${i}].description`);
    return [{
      type: 'function',
      function: {
        name: stringAt(tool.name, `tools[${i}].name`),
        ...(description === undefined ? {} : { description }),
        parameters: objectAt(tool.input_schema, `tools[${i}].input_schema`),
      },
    }];
  });
}

function translateToolChoice(value: unknown, tools: Tool[]): { toolChoice: ToolChoice; parallelToolCalls: boolean } {
  if (value === undefined || value === null) return { toolChoice: 'auto', parallelToolCalls: true };
  const choice = objectAt(value, 'tool_choice');
  const parallelToolCalls = optionalBoolean(choice, 'disable_parallel_tool_use', 'tool_choice.disable_parallel_tool_use') !== true;
  switch (choice.type) {
    case 'auto':
      return { toolChoice: 'auto', parallelToolCalls };
    case 'any':
      return { toolChoice: 'required', parallelToolCalls };
    case 'none':
      return { toolChoice: 'none', parallelToolCalls };
    case 'tool':
      return { toolChoice: namedToolChoice(stringAt(choice.name, 'tool_choice.name'), tools, 'tool_choice.name'), parallelToolCalls };
    default:
      return invalid('tool_choice.type', "must be 'auto', 'any', 'tool' or 'none'");
  }
}

function sampling(request: Json): SamplingOptions {
  const options = numericSampling(request, { maxTokens: 'max_tokens', temperature: 'temperature', topP: 'top_p', topK: 'top_k' });
  const stop = stopStrings(request.stop_sequences, 'stop_sequences');
  if (stop !== undefined && stop.length > 0) options.stop = stop;
  return options;
}

/** `thinking` and `output_config.effort`, in the words chat templates use (`enable_thinking`, `reasoning_effort`). */
function templateVariables(request: Json): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  if (request.thinking !== undefined && request.thinking !== null) {
    const kind = objectAt(request.thinking, 'thinking').type;
    // Kinds Anthropic adds later leave the template's default alone rather than fail a client that sends them.
    if (kind === 'enabled' || kind === 'adaptive') variables.enable_thinking = true;
    else if (kind === 'disabled') variables.enable_thinking = false;
  }
  if (request.output_config !== undefined && request.output_config !== null) {
    const effort = objectAt(request.output_config, 'output_config').effort;
    if (typeof effort === 'string' && REASONING_EFFORTS.has(effort)) variables.reasoning_effort = effort;
  }
  return variables;
}

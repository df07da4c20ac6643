import type { IdGenerator } from '../parse/ids.js';
import { isPlainObject } from '../util/guards.js';
import type { ParsedMessage, ParsedToolCall } from '../types.js';
import { jsonInSourceOrder } from './source-order.js';

/**
 * transformers' dict → chatfmt's OpenAI message. Field names are the template's choice: `content`, `tool_calls`, and
 * `reasoning_content` or `thinking` (both read, in the dict's key order) are used; other fields (`role`, `score`, …)
 * have no OpenAI place and are left out.
 */

export const REASONING_FIELDS: readonly string[] = ['reasoning_content', 'thinking'];
export const CONTENT_FIELD = 'content';
export const CALLS_FIELD = 'tool_calls';

export type Target = 'content' | 'reasoning';

export function targetOf(field: string): Target | undefined {
  if (field === CONTENT_FIELD) return 'content';
  return REASONING_FIELDS.includes(field) ? 'reasoning' : undefined;
}

/** A field value as message text: strings as they are, a list of strings joined, anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join('');
  return jsonInSourceOrder(value);
}

export interface CallShape {
  name: string;
  arguments: string;
  id?: string;
}

/** A `tool_calls` value (one call or a list) as calls; entries without a function name are reported, not guessed. */
export function callsOf(value: unknown, problems: string[]): CallShape[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  const calls: CallShape[] = [];
  for (const entry of list) {
    const record = isPlainObject(entry) ? entry : undefined;
    const fn = record && isPlainObject(record.function) ? record.function : record;
    if (!fn || typeof fn.name !== 'string' || fn.name.length === 0) {
      problems.push(`a tool_calls entry without a function name: ${JSON.stringify(entry)}`);
      continue;
    }
    // Hermes-style templates pass the model's object through, and some models write "parameters" (chatfmt reads both).
    const args = fn.arguments ?? fn.parameters;
    calls.push({
      name: fn.name,
      arguments: typeof args === 'string' ? args : args === undefined || args === null ? '{}' : jsonInSourceOrder(args),
      ...(record && typeof record.id === 'string' && record.id.length > 0 ? { id: record.id } : {}),
    });
  }
  return calls;
}

/**
 * Maps transformers' dict onto `{content, reasoning_content, tool_calls}`: absent → null, arguments as JSON text, ids
 * the template captured kept, others minted by `idGenerator`.
 */
export function toOpenAIMessage(dict: Record<string, unknown>, idGenerator: IdGenerator): ParsedMessage {
  const problems: string[] = [];
  const reasoning = Object.keys(dict)
    .filter((key) => REASONING_FIELDS.includes(key))
    .map((key) => textOf(dict[key]))
    .join('');
  const content = textOf(dict[CONTENT_FIELD]);
  const tool_calls: ParsedToolCall[] = callsOf(dict[CALLS_FIELD], problems).map((call, index) => ({
    id: call.id ?? idGenerator({ index, name: call.name }),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    role: 'assistant',
    content: content.length > 0 ? content : null,
    reasoning_content: reasoning.length > 0 ? reasoning : null,
    tool_calls,
    diagnostics: problems.map((message) => ({ code: 'PARSE_BAD_CALL_SYNTAX', severity: 'warning', message })),
  };
}

import { quotedValue } from '../exact-json.js';
import { issue, type ConvertIssue } from '../issues.js';
import { isPlainObject } from '../../util/guards.js';
import { decodeJsonField } from '../loose-json.js';
import { PyFloat } from '../../jinja/index.js';
import { importOpenAi } from './openai.js';
import { finish, type ImportResult } from './types.js';
import { append } from '../../util/append.js';

/**
 * Imports LLaMA-Factory v1's standard rows: `{messages: [{role, content: [{type, value}], loss_weight}], tools}`, where a
 * part is `text`, `reasoning` or `tool_call` (a `{name, arguments}` JSON text; `tool_calls` holds a list), and `tools`
 * is a JSON string. Each message becomes one OpenAI message at the same index, so paths into `messages[i]` name the
 * row's own message; the result then goes through the OpenAI importer (ids, argument text, tools).
 *
 * `loss_weight` maps to OpenAI's `weight` on assistant turns (0 or 1); a weight OpenAI cannot say (0.5, or a trained
 * user turn) is an IMPORT_LOSS_WEIGHT warning and the turn keeps chatfmt's default (assistant turns train, others not).
 */
export function importLlamaFactory(row: unknown, line: number): ImportResult {
  if (!isPlainObject(row)) return finish([], [], [issue(line, 'IMPORT_BAD_ROW', '', 'a row must be a JSON object')]);
  if (!Array.isArray(row.messages)) return finish([], [], [issue(line, 'IMPORT_BAD_ROW', 'messages', 'a LLaMA-Factory v1 row needs a "messages" list')]);
  const issues: ConvertIssue[] = [];
  const messages = row.messages.map((message, index) => openAiMessage(message, `messages[${index}]`, line, issues));
  if (issues.some((found) => found.severity === 'error')) return finish([], [], issues);
  const imported = importOpenAi({ messages, ...(row.tools === undefined ? {} : { tools: row.tools }) }, line);
  return { conversation: imported.conversation, issues: [...issues, ...imported.issues] };
}

interface Parts {
  text: string[];
  reasoning: string[];
  calls: unknown[];
}

function openAiMessage(message: unknown, path: string, line: number, issues: ConvertIssue[]): unknown {
  // Not an object, or an unknown role: the OpenAI importer says so at this same path.
  if (!isPlainObject(message)) return message;
  const { content, loss_weight: lossWeight, ...rest } = message;
  const out: Record<string, unknown> = { ...rest };
  const parts = readParts(content, `${path}.content`, line, issues);
  if (!parts) return out;
  out.content = parts.text.length > 0 || parts.calls.length === 0 ? parts.text.join('') : null;
  if (parts.reasoning.length > 0) out.reasoning_content = parts.reasoning.join('');
  if (parts.calls.length > 0) out.tool_calls = parts.calls.map((call) => ({ type: 'function', function: call }));
  const weight = openAiWeight(lossWeight, message.role, `${path}.loss_weight`, line, issues);
  if (weight !== undefined) out.weight = weight;
  return out;
}

function readParts(content: unknown, path: string, line: number, issues: ConvertIssue[]): Parts | undefined {
  const parts: Parts = { text: [], reasoning: [], calls: [] };
  if (typeof content === 'string' || content === undefined || content === null) {
    if (typeof content === 'string') parts.text.push(content);
    return parts;
  }
  if (!Array.isArray(content)) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', path, 'content must be a list of {type, value} parts'));
    return undefined;
  }
  for (const [index, part] of content.entries()) {
    const at = `${path}[${index}]`;
    if (!isPlainObject(part) || typeof part.type !== 'string' || typeof part.value !== 'string') {
      issues.push(issue(line, 'IMPORT_BAD_ROW', at, 'a content part must be {"type": "...", "value": "<string>"}'));
      return undefined;
    }
    if (part.type === 'text') parts.text.push(part.value);
    else if (part.type === 'reasoning') parts.reasoning.push(part.value);
    else if (part.type === 'tool_call' || part.type === 'tool_calls') {
      const decoded = decodeJsonField(part.value);
      if (!decoded.ok) {
        issues.push(issue(line, 'IMPORT_BAD_JSON', `${at}.value`, `tool_call is not JSON: ${decoded.error}`));
        return undefined;
      }
      append(parts.calls, Array.isArray(decoded.value) ? decoded.value : [decoded.value]);
    } else {
      issues.push(issue(line, 'IMPORT_BAD_ROW', `${at}.type`, `part type ${JSON.stringify(part.type)} is not text, reasoning or tool_call`));
      return undefined;
    }
  }
  return parts;
}

/** OpenAI's `weight` for a v1 `loss_weight`: 0 on an assistant turn, nothing where the default already says it. */
function openAiWeight(lossWeight: unknown, role: unknown, path: string, line: number, issues: ConvertIssue[]): number | undefined {
  if (lossWeight === undefined || lossWeight === null) return undefined;
  // Read with render's number model, 1.0 is a PyFloat.
  const weight = lossWeight instanceof PyFloat ? lossWeight.value : lossWeight;
  const trained = role === 'assistant';
  if (weight === (trained ? 1 : 0)) return undefined;
  if (weight === 0 && trained) return 0;
  const what = typeof weight === 'number' ? String(weight) : quotedValue(weight);
  issues.push(issue(line, 'IMPORT_LOSS_WEIGHT', path, `loss_weight ${what} on this ${String(role)} turn has no OpenAI equivalent (weight is 0 or 1, on assistant turns): it is ${trained ? 'trained' : 'not trained'}`));
  return undefined;
}

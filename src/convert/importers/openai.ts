import type { FunctionTool, Message, ToolCall } from '../../types.js';
import { quotedValue } from '../exact-json.js';
import { issue, type ConvertIssue } from '../issues.js';
import { isPlainObject } from '../../util/guards.js';
import { importTools } from '../tool-schema.js';
import { CallLedger, readCall } from './calls.js';
import { finish, type ImportResult } from './types.js';
import { append } from '../../util/append.js';

const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/**
 * Imports an OpenAI fine-tuning row. Messages pass through with their extra keys (`weight`, `reasoning_content`, …);
 * what is normalised: dict `arguments` become JSON strings, calls without ids get ids and id-less results are paired
 * with them in order, legacy `functions` / `function_call` / `role: "function"` become tools / tool_calls / tool.
 * A row's `chat_template_kwargs` (TRL) is kept. Deeper checks (id matching, schemas) are validate's job.
 */
export function importOpenAi(row: unknown, line: number): ImportResult {
  const issues: ConvertIssue[] = [];
  if (!isPlainObject(row)) return finish([], [], [issue(line, 'IMPORT_BAD_ROW', '', 'a row must be a JSON object')]);
  if (!Array.isArray(row.messages)) return finish([], [], [issue(line, 'IMPORT_BAD_ROW', 'messages', 'an OpenAI row needs a "messages" list')]);
  const toolsField = row.tools ?? row.functions;
  const { tools, issues: toolIssues } = importTools(toolsField, line, row.tools !== undefined ? 'tools' : 'functions');
  append(issues, toolIssues);
  const ledger = new CallLedger();
  const messages: Message[] = [];
  row.messages.forEach((value, index) => {
    const message = importMessage(value, `messages[${index}]`, ledger, line, issues);
    if (message) messages.push(message);
  });
  const result = finish(messages, tools as FunctionTool[], issues, line, ledger.minted);
  // TRL's per-row template arguments (enable_thinking, …) travel with the conversation.
  if (result.conversation && isPlainObject(row.chat_template_kwargs)) result.conversation.chat_template_kwargs = row.chat_template_kwargs;
  return result;
}

function importMessage(value: unknown, path: string, ledger: CallLedger, line: number, issues: ConvertIssue[]): Message | undefined {
  if (!isPlainObject(value)) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', path, 'a message must be an object'));
    return undefined;
  }
  if (typeof value.role !== 'string' || !roles.has(value.role)) {
    issues.push(issue(line, 'IMPORT_UNKNOWN_ROLE', `${path}.role`, `unknown role ${quotedValue(value.role)}`));
    return undefined;
  }
  const content = value.content;
  if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', `${path}.content`, 'content must be a string, a list of parts or null'));
    return undefined;
  }
  const { function_call: legacyCall, ...rest } = value;
  const message: Message = { ...rest, role: value.role === 'function' ? 'tool' : value.role };
  if (message.role === 'assistant') {
    const calls = importCalls(value.tool_calls, legacyCall, path, ledger, line, issues);
    if (calls === null) return undefined;
    if (calls) {
      message.tool_calls = calls;
      ledger.opened(calls);
    }
  } else if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
    const call = ledger.answer();
    if (call?.id) message.tool_call_id = call.id;
    if (message.name === undefined && call) message.name = call.function.name;
  }
  return message;
}

/** undefined: no calls; null: calls that could not be read (issues say why). */
function importCalls(
  toolCalls: unknown,
  legacyCall: unknown,
  path: string,
  ledger: CallLedger,
  line: number,
  issues: ConvertIssue[],
): ToolCall[] | undefined | null {
  if (toolCalls === undefined || toolCalls === null) {
    if (legacyCall === undefined || legacyCall === null) return undefined;
    const call = readCall(legacyCall, ledger.newId(), line, `${path}.function_call`, issues);
    return call ? [call] : null;
  }
  if (!Array.isArray(toolCalls)) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', `${path}.tool_calls`, 'tool_calls must be a list'));
    return null;
  }
  const calls: ToolCall[] = [];
  for (const [index, value] of toolCalls.entries()) {
    const id = isPlainObject(value) && typeof value.id === 'string' && value.id !== '' ? value.id : ledger.newId();
    const call = readCall(value, id, line, `${path}.tool_calls[${index}].function`, issues);
    if (!call) return null;
    calls.push(keepRawArguments(call, value));
  }
  return calls;
}

/** String arguments pass through untouched (their number spelling and key order are the dataset's). */
function keepRawArguments(call: ToolCall, original: unknown): ToolCall {
  const fn = isPlainObject(original) && isPlainObject(original.function) ? original.function : undefined;
  if (fn && typeof fn.arguments === 'string' && fn.arguments.trim() !== '') {
    return { ...call, function: { ...call.function, arguments: fn.arguments } };
  }
  return call;
}

import { ChatfmtError } from '../errors.js';
import { JsonNestingError, parsePythonJson, pythonJsonDumps } from '../jinja/index.js';
import type { Conversation, Message, ToolCall } from '../types.js';
import { toNineCharIds } from './call-ids.js';
import type { RenderWarning, TemplateNeeds } from './types.js';

/**
 * `--args auto`: give the template the argument form it is written for and a string where it cannot
 * take `content: null`. The caller's objects are never mutated; each change is reported as a warning.
 */
export function adaptConversation(conversation: Conversation, needs: TemplateNeeds): { conversation: Conversation; warnings: RenderWarning[] } {
  const warnings: RenderWarning[] = [];
  let changed = false;
  const messages = conversation.messages.map((message, index) => {
    const adapted = adaptMessage(message, index, needs, warnings);
    if (adapted !== message) changed = true;
    return adapted;
  });
  const adapted = changed ? { ...conversation, messages } : conversation;
  if (!needs.nineCharCallIds) return { conversation: adapted, warnings };
  const { conversation: withIds, rewrites } = toNineCharIds(adapted);
  for (const rewrite of rewrites) {
    const was = rewrite.from === undefined ? 'no id' : `id ${JSON.stringify(rewrite.from)}`;
    warnings.push({ code: 'CALL_IDS_REWRITTEN', path: rewrite.path, message: `the template takes 9-character call ids: ${was} given as ${rewrite.to}` });
  }
  return { conversation: withIds, warnings };
}

function adaptMessage(message: Message, index: number, needs: TemplateNeeds, warnings: RenderWarning[]): Message {
  let result = message;
  if (needs.nullContentNeedsString && message && (message.content === null || message.content === undefined)) {
    const was = message.content === null ? 'null' : 'missing';
    result = { ...result, content: '' };
    warnings.push({ code: 'NULL_CONTENT_CONVERTED', path: `messages[${index}].content`, message: `content ${was}, given as "" (the template cannot take it)` });
  }
  if (needs.argumentsForm !== 'either' && Array.isArray(message?.tool_calls)) {
    let callsChanged = false;
    const calls = message.tool_calls.map((call, callIndex) => {
      const path = `messages[${index}].tool_calls[${callIndex}].function.arguments`;
      const converted = adaptCall(call, needs.argumentsForm as 'string' | 'object', path);
      if (converted === call) return call;
      callsChanged = true;
      warnings.push({
        code: 'ARGS_CONVERTED',
        path,
        message: needs.argumentsForm === 'object' ? 'JSON-string arguments given as an object' : 'object arguments given as a JSON string',
      });
      return converted;
    });
    if (callsChanged) result = { ...result, tool_calls: calls };
  }
  return result;
}

function adaptCall(call: ToolCall, form: 'string' | 'object', path: string): ToolCall {
  const fn = call?.function;
  if (!fn || typeof fn !== 'object') return call;
  const args = fn.arguments as unknown;
  if (form === 'object' && typeof args === 'string') {
    const parsed = tryParse(args, path);
    if (parsed === undefined) return call;
    return { ...call, function: { ...fn, arguments: parsed as Record<string, unknown> } };
  }
  if (form === 'string' && args !== null && typeof args === 'object') {
    return { ...call, function: { ...fn, arguments: pythonJsonDumps(args) } };
  }
  return call;
}

/**
 * Only a JSON object becomes a dict; anything else stays as given and the template decides. JSON nested too deep to
 * read is an error: passed on as a string, a template written for objects would silently render no arguments.
 */
function tryParse(text: string, path: string): unknown {
  if (text.trim() === '') return {};
  try {
    const value = parsePythonJson(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch (error) {
    if (error instanceof JsonNestingError) throw new ChatfmtError('INPUT_INVALID', `${path}: ${error.message}; the template needs these arguments as an object`);
    return undefined;
  }
}

import { isPlainObject } from '../../util/guards.js';
import type { Message, Tool } from '../../types.js';
import { joinPath } from '../../readers/paths.js';

/** One tool call as the checks see it, with paths back into the original row. */
export interface CallView {
  /** Index of the message that made the call (in `RowView.messages`). */
  message: number;
  id: unknown;
  name: unknown;
  args: unknown;
  /** Path of the call object (`messages[2].tool_calls[0]`), of its id, name and arguments. */
  path: string;
  idPath: string;
  namePath: string;
  argsPath: string;
}

export interface ResultView {
  message: number;
  id: unknown;
  name: unknown;
  path: string;
  idPath: string;
}

export interface ToolView {
  name: string;
  /** `parameters` as declared; undefined when absent. */
  parameters: unknown;
  /** Path of the function declaration (`tools[0].function`, `functions[1]`). */
  path: string;
}

export type TurnView =
  | { kind: 'calls'; message: number; calls: CallView[] }
  | { kind: 'result'; message: number; result: ResultView }
  | { kind: 'other'; message: number; role: string };

/** A row of either shape, reduced to what the protocol, argument and template checks need. */
export interface RowView {
  shape: 'openai' | 'sharegpt';
  turns: TurnView[];
  /** Declared function tools; undefined when the row declares none at all. */
  tools: ToolView[] | undefined;
  /** JSON text of the declarations as written: rows repeating the same tools share one checked declaration set. */
  toolsKey: string;
  /** True when tools were given but could not be read (already reported); skips declared-name checks. */
  toolsUnreadable?: boolean;
  /** Path where tools are declared (for "no tools declared" issues). */
  toolsPath: string;
  /** ShareGPT rows have no call ids: results match calls by position. */
  idsImplicit: boolean;
  hasAssistant: boolean;
  /** The conversation as OpenAI messages, for rendering (ShareGPT rows are converted). */
  conversation: { messages: Message[]; tools?: Tool[] };
  /** Path of message i of `conversation.messages` in the original row. */
  messagePath(index: number): string;
}

/** Builds the view of an OpenAI-shape row. Tolerates any malformation: the structure check reports those. */
export function viewOpenAIRow(row: Record<string, unknown>): RowView {
  const messages = Array.isArray(row.messages) ? row.messages : [];
  const turns: TurnView[] = [];
  let hasAssistant = false;
  messages.forEach((message: unknown, index) => {
    if (!isPlainObject(message)) return;
    const base = joinPath('messages', index);
    const role = typeof message.role === 'string' ? message.role : '';
    if (role === 'assistant') {
      hasAssistant = true;
      const calls = callsOfMessage(message, index, base);
      if (calls.length > 0) {
        turns.push({ kind: 'calls', message: index, calls });
        return;
      }
    }
    if (role === 'tool' || role === 'function') {
      const idKey = role === 'tool' ? 'tool_call_id' : undefined;
      turns.push({
        kind: 'result',
        message: index,
        result: { message: index, id: idKey ? message[idKey] : undefined, name: message.name, path: base, idPath: joinPath(base, idKey ?? 'name') },
      });
      return;
    }
    turns.push({ kind: 'other', message: index, role });
  });
  const tools = declaredTools(row);
  return {
    shape: 'openai',
    turns,
    tools,
    toolsKey: tools ? `${JSON.stringify(row.tools) ?? ''}\u0000${JSON.stringify(row.functions) ?? ''}` : '',
    toolsPath: 'tools',
    idsImplicit: false,
    hasAssistant,
    conversation: renderableConversation(row, messages),
    messagePath: (index) => joinPath('messages', index),
  };
}

/**
 * The conversation a chat template gets. Chat templates know only `tool_calls`/`tool`, so the legacy OpenAI
 * `function_call`/`function`/`functions` form is rewritten into it (a copy; only when present).
 */
function renderableConversation(row: Record<string, unknown>, messages: unknown[]): { messages: Message[]; tools?: Tool[] } {
  const legacy = messages.some((m) => isPlainObject(m) && (m.role === 'function' || isPlainObject(m.function_call)));
  const converted = !legacy
    ? (messages as Message[])
    : messages.map((m) => {
        if (!isPlainObject(m)) return m as Message;
        if (m.role === 'function') {
          const { role: _role, ...rest } = m;
          return { ...rest, role: 'tool' } as Message;
        }
        if (m.role === 'assistant' && isPlainObject(m.function_call) && m.tool_calls === undefined) {
          const { function_call: call, ...rest } = m;
          return { ...rest, tool_calls: [{ type: "function", function: call }] } as unknown as Message;
        }
        return m as Message;
      });
  let tools = Array.isArray(row.tools) ? (row.tools as Tool[]) : undefined;
  if (Array.isArray(row.functions) && row.functions.length > 0) {
    tools = [...(tools ?? []), ...row.functions.map((fn) => ({ type: 'function', function: fn }) as Tool)];
  }
  return { messages: converted, ...(tools ? { tools } : {}) };
}

function callsOfMessage(message: Record<string, unknown>, index: number, base: string): CallView[] {
  const calls: CallView[] = [];
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call: unknown, k) => {
      if (!isPlainObject(call) || !isPlainObject(call.function)) return;
      const path = joinPath(base, 'tool_calls', k);
      calls.push({
        message: index,
        id: call.id,
        name: call.function.name,
        args: call.function.arguments,
        path,
        idPath: joinPath(path, 'id'),
        namePath: joinPath(path, 'function', 'name'),
        argsPath: joinPath(path, 'function', 'arguments'),
      });
    });
  } else if (isPlainObject(message.function_call)) {
    // Legacy OpenAI `function_call`: one call, matched to the next `function` message by position.
    const path = joinPath(base, 'function_call');
    calls.push({
      message: index,
      id: undefined,
      name: message.function_call.name,
      args: message.function_call.arguments,
      path,
      idPath: path,
      namePath: joinPath(path, 'name'),
      argsPath: joinPath(path, 'arguments'),
    });
  }
  return calls;
}

function declaredTools(row: Record<string, unknown>): ToolView[] | undefined {
  const hasTools = Array.isArray(row.tools) && row.tools.length > 0;
  const hasFunctions = Array.isArray(row.functions) && row.functions.length > 0;
  if (!hasTools && !hasFunctions) return undefined;
  const tools: ToolView[] = [];
  if (hasTools) {
    (row.tools as unknown[]).forEach((tool, k) => {
      if (!isPlainObject(tool) || !isPlainObject(tool.function)) return;
      if (typeof tool.function.name !== 'string') return;
      tools.push({ name: tool.function.name, parameters: tool.function.parameters, path: joinPath('tools', k, 'function') });
    });
  }
  if (hasFunctions) {
    (row.functions as unknown[]).forEach((fn, k) => {
      if (!isPlainObject(fn) || typeof fn.name !== 'string') return;
      tools.push({ name: fn.name, parameters: fn.parameters, path: joinPath('functions', k) });
    });
  }
  return tools;
}

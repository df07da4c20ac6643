// `--repair lenient`: a model that wrote its call as plain JSON text (bare, or in a ```json fence) instead of its
// format's markers. Taken as a call only when the whole answer is that JSON and every name is a declared tool.
import type { Tool } from '../../types.js';

/** Larger answers are never read as a call. */
export const MAX_RECOVERABLE_CHARS = 256 * 1024;

export interface RecoveredCall {
  name: string;
  arguments: string;
}

/** Could `text` (the answer so far) still turn out to be a bare or fenced JSON call? */
export function mayBeBareCall(text: string): boolean {
  if (text.length > MAX_RECOVERABLE_CHARS) return false;
  const start = text.trimStart();
  return start === '' || start.startsWith('{') || start.startsWith('[') || '```'.startsWith(start.slice(0, 3)) || start.startsWith('```');
}

export function recoverCalls(text: string, tools: readonly Tool[]): RecoveredCall[] | undefined {
  if (text.length > MAX_RECOVERABLE_CHARS) return undefined;
  const declared = new Set(tools.map((tool) => (tool as { function?: { name?: unknown } }).function?.name).filter((name): name is string => typeof name === 'string'));
  if (declared.size === 0) return undefined;
  let body = text.trim();
  if (body.startsWith('```')) {
    const newline = body.indexOf('\n');
    if (newline < 0 || !body.endsWith('```') || body.length < newline + 4) return undefined;
    body = body.slice(newline + 1, -3).trim();
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const items = Array.isArray(value) ? value : [value];
  const calls: RecoveredCall[] = [];
  for (const item of items) {
    const call = readCall(item, declared);
    if (!call) return undefined;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

function readCall(item: unknown, declared: Set<string>): RecoveredCall | undefined {
  if (!isObject(item)) return undefined;
  const holder = isObject(item.function) ? item.function : item;
  const name = holder.name;
  if (typeof name !== 'string' || !declared.has(name)) return undefined;
  let args = holder.arguments ?? holder.parameters ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return isObject(args) ? { name, arguments: JSON.stringify(args) } : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

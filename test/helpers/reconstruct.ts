import type { Delta, Diagnostic, ParsedMessage, ParsedToolCall } from '../../src/types.js';

const deltaKeys = new Set(['content', 'reasoning_content', 'tool_calls', 'withdrawn_tool_calls', 'diagnostics']);

/** A stream that broke the OpenAI delta protocol (or chatfmt's additions to it). */
export class ProtocolError extends Error {}

function check(condition: unknown, message: string, delta: Delta): asserts condition {
  if (!condition) throw new ProtocolError(`${message}\n  in delta ${JSON.stringify(delta)}`);
}

interface OpenCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Rebuilds the final message from a delta stream the way an OpenAI client does (join on `index`),
 * checking the protocol on the way: a call's first delta carries index, id, type 'function', the full
 * name and `arguments: ''`; later deltas carry only argument fragments; indexes only increase;
 * withdrawn calls get nothing more. Independent of the library's own accumulateDeltas.
 */
export function reconstruct(deltas: readonly Delta[]): ParsedMessage {
  let content = '';
  let reasoning = '';
  const calls = new Map<number, OpenCall>();
  const withdrawn = new Set<number>();
  const diagnostics: Diagnostic[] = [];
  let lastIndex = -1;
  for (const delta of deltas) {
    for (const key of Object.keys(delta)) check(deltaKeys.has(key), `unknown delta key ${key}`, delta);
    if (delta.content !== undefined) {
      check(typeof delta.content === 'string', 'content must be a string', delta);
      content += delta.content;
    }
    if (delta.reasoning_content !== undefined) {
      check(typeof delta.reasoning_content === 'string', 'reasoning_content must be a string', delta);
      reasoning += delta.reasoning_content;
    }
    for (const part of delta.tool_calls ?? []) {
      check(Number.isInteger(part.index) && part.index >= 0, 'tool call index must be a non-negative integer', delta);
      check(!withdrawn.has(part.index), `fragment for withdrawn call ${part.index}`, delta);
      const open = calls.get(part.index);
      if (!open) {
        check(part.index > lastIndex, `call index ${part.index} does not increase (last ${lastIndex})`, delta);
        lastIndex = part.index;
        check(typeof part.id === 'string' && part.id.length > 0, 'first delta of a call needs an id', delta);
        check(part.type === 'function', "first delta of a call needs type 'function'", delta);
        check(typeof part.function?.name === 'string' && part.function.name.length > 0, 'first delta needs the full name', delta);
        check(part.function?.arguments === '', "first delta of a call carries arguments ''", delta);
        calls.set(part.index, { id: part.id, name: part.function.name, arguments: '' });
      } else {
        check(part.id === undefined && part.type === undefined, 'id/type sent twice', delta);
        check(part.function?.name === undefined, 'name sent twice', delta);
        check(typeof part.function?.arguments === 'string', 'a later call delta carries an argument fragment', delta);
        open.arguments += part.function.arguments;
      }
    }
    for (const index of delta.withdrawn_tool_calls ?? []) {
      check(calls.has(index) && !withdrawn.has(index), `withdrawal of unknown or withdrawn call ${index}`, delta);
      withdrawn.add(index);
    }
    if (delta.diagnostics) diagnostics.push(...delta.diagnostics);
  }
  const toolCalls: ParsedToolCall[] = [...calls]
    .filter(([index]) => !withdrawn.has(index))
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  for (const call of toolCalls) {
    let value: unknown;
    try {
      value = JSON.parse(call.function.arguments);
    } catch {
      throw new ProtocolError(`final arguments of ${call.function.name} are not JSON: ${call.function.arguments}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ProtocolError(`final arguments of ${call.function.name} are not an object: ${call.function.arguments}`);
    }
  }
  return {
    role: 'assistant',
    content: content === '' ? null : content,
    reasoning_content: reasoning === '' ? null : reasoning,
    tool_calls: toolCalls,
    diagnostics,
  };
}

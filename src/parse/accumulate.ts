import type { Delta, Diagnostic, ParsedMessage, ParsedToolCall } from '../types.js';

/**
 * Folds stream deltas into the final message, as a client would: text concatenates, argument
 * fragments join per call index, withdrawn calls are dropped (the others keep their indexes' order).
 */
export function accumulateDeltas(deltas: Iterable<Delta>): ParsedMessage {
  const content: string[] = [];
  const reasoning: string[] = [];
  const calls = new Map<number, { id: string; name: string; args: string[] }>();
  const withdrawn = new Set<number>();
  const diagnostics: Diagnostic[] = [];
  for (const delta of deltas) {
    if (delta.withdrawn_tool_calls) for (const index of delta.withdrawn_tool_calls) withdrawn.add(index);
    if (delta.reasoning_content) reasoning.push(delta.reasoning_content);
    if (delta.content) content.push(delta.content);
    for (const part of delta.tool_calls ?? []) {
      let call = calls.get(part.index);
      if (!call) calls.set(part.index, (call = { id: part.id ?? '', name: part.function?.name ?? '', args: [] }));
      if (part.function?.arguments) call.args.push(part.function.arguments);
    }
    if (delta.diagnostics) diagnostics.push(...delta.diagnostics);
  }
  const toolCalls: ParsedToolCall[] = [...calls]
    .filter(([index]) => !withdrawn.has(index))
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args.join('') } }));
  return {
    role: 'assistant',
    content: content.length > 0 ? content.join('') : null,
    reasoning_content: reasoning.length > 0 ? reasoning.join('') : null,
    tool_calls: toolCalls,
    diagnostics,
  };
}

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
  // Indexed loops, not for-of or spreads: a first parse in a fresh process runs this once per delta (a few per call)
  // in V8's unoptimised tiers, where for-of drives the iterator protocol, a call per step.
  const list = Array.isArray(deltas) ? (deltas as readonly Delta[]) : [...deltas];
  for (let d = 0; d < list.length; d++) {
    const delta = list[d]!;
    if (delta.withdrawn_tool_calls) for (const index of delta.withdrawn_tool_calls) withdrawn.add(index);
    if (delta.reasoning_content) reasoning.push(delta.reasoning_content);
    if (delta.content) content.push(delta.content);
    const parts = delta.tool_calls;
    if (parts) {
      for (let p = 0; p < parts.length; p++) {
        const part = parts[p]!;
        let call = calls.get(part.index);
        if (!call) calls.set(part.index, (call = { id: part.id ?? '', name: part.function?.name ?? '', args: [] }));
        if (part.function?.arguments) call.args.push(part.function.arguments);
      }
    }
    if (delta.diagnostics) for (let k = 0; k < delta.diagnostics.length; k++) diagnostics.push(delta.diagnostics[k]!);
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

import type { Delta, Diagnostic, ParsedMessage, ParsedToolCall } from '../types.js';
import type { DeltaSink } from './sink.js';

interface CallParts {
  index: number;
  id: string;
  name: string;
  args: string[];
}

/**
 * Folds a stream parser's output into the final message, as a client would: text concatenates, argument fragments
 * join per call index, withdrawn calls are dropped (the others keep their indexes' order). As a sink it takes the
 * output straight from `pushTo`/`finishTo`, so a batch parse builds no OpenAI delta per piece of text; `delta` folds
 * one delta of any shape, which is what `accumulateDeltas` does for a list.
 */
export class MessageAccumulator implements DeltaSink {
  private readonly contentParts: string[] = [];
  private readonly reasoningParts: string[] = [];
  private readonly calls = new Map<number, CallParts>();
  private readonly withdrawn = new Set<number>();
  private readonly diagnostics: Diagnostic[] = [];

  content(text: string): void {
    if (text) this.contentParts.push(text);
  }

  reasoning(text: string): void {
    if (text) this.reasoningParts.push(text);
  }

  arguments(index: number, text: string): void {
    if (text) this.call(index, undefined, undefined).args.push(text);
  }

  // Indexed loops, not for-of: a first parse in a fresh process runs this once per delta (a few per call) in V8's
  // unoptimised tiers, where for-of drives the iterator protocol, a call per step.
  delta(delta: Delta): void {
    const withdrawn = delta.withdrawn_tool_calls;
    if (withdrawn) for (let k = 0; k < withdrawn.length; k++) this.withdrawn.add(withdrawn[k]!);
    if (delta.reasoning_content) this.reasoningParts.push(delta.reasoning_content);
    if (delta.content) this.contentParts.push(delta.content);
    const parts = delta.tool_calls;
    if (parts) {
      for (let p = 0; p < parts.length; p++) {
        const part = parts[p]!;
        const call = this.call(part.index, part.id, part.function?.name);
        if (part.function?.arguments) call.args.push(part.function.arguments);
      }
    }
    const diagnostics = delta.diagnostics;
    if (diagnostics) for (let k = 0; k < diagnostics.length; k++) this.diagnostics.push(diagnostics[k]!);
  }

  /** The message so far. */
  message(): ParsedMessage {
    // The calls in the order first seen (a parse numbers them in that order), copied out by one native call, then one
    // indexed loop: a spread of the map with a filter, a sort and a map ran a callback (and an entry array) per call in
    // a first parse's unoptimised tiers. Sorted only when the calls came out of order.
    const seen = Array.from(this.calls.values());
    const calls = isSortedByIndex(seen) ? seen : seen.sort(byIndex);
    const toolCalls: ParsedToolCall[] = [];
    for (let k = 0; k < calls.length; k++) {
      const call = calls[k]!;
      if (this.withdrawn.has(call.index)) continue;
      toolCalls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args.join('') } });
    }
    return {
      role: 'assistant',
      content: this.contentParts.length > 0 ? this.contentParts.join('') : null,
      reasoning_content: this.reasoningParts.length > 0 ? this.reasoningParts.join('') : null,
      tool_calls: toolCalls,
      diagnostics: this.diagnostics.slice(),
    };
  }

  /** The call numbered `index`; its id and name are those of the first delta that names it. */
  private call(index: number, id: string | undefined, name: string | undefined): CallParts {
    let call = this.calls.get(index);
    if (!call) this.calls.set(index, (call = { index, id: id ?? '', name: name ?? '', args: [] }));
    return call;
  }
}

function isSortedByIndex(calls: readonly CallParts[]): boolean {
  for (let k = 1; k < calls.length; k++) if (calls[k - 1]!.index > calls[k]!.index) return false;
  return true;
}

function byIndex(a: CallParts, b: CallParts): number {
  return a.index - b.index;
}

/** Folds a list of stream deltas into the final message (see MessageAccumulator). */
export function accumulateDeltas(deltas: Iterable<Delta>): ParsedMessage {
  const accumulator = new MessageAccumulator();
  const list = Array.isArray(deltas) ? (deltas as readonly Delta[]) : [...deltas];
  for (let d = 0; d < list.length; d++) accumulator.delta(list[d]!);
  return accumulator.message();
}

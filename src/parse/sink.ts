import type { Delta } from '../types.js';

/**
 * Receives a stream parser's output without an OpenAI delta per piece of text (`StreamParser.pushTo`/`finishTo`).
 * Text and argument fragments come as plain strings; everything else (a call's start with its id and name, its end,
 * a withdrawal, diagnostics) as the delta `push` would have returned for it. Calling `delta({content: text})` for
 * `content(text)` and so on rebuilds exactly what `push` returns, up to how consecutive pieces are merged.
 */
export interface DeltaSink {
  /** Answer text. */
  content(text: string): void;
  /** Reasoning text. */
  reasoning(text: string): void;
  /** A fragment of the arguments of the call numbered `index` (started earlier by a `delta` with its id and name). */
  arguments(index: number, text: string): void;
  /** Anything else: a call's first delta, `tool_call_ends`, `withdrawn_tool_calls`, `diagnostics`. */
  delta(delta: Delta): void;
}

type Merging = 'content' | 'reasoning' | 'arguments' | 'other';

/** Collects sink calls as `push` returns them: consecutive text of one kind, or fragments of one call, in one delta. */
export class DeltaCollector implements DeltaSink {
  readonly deltas: Delta[] = [];
  private last: Delta | undefined;
  private merging: Merging = 'other';

  content(text: string): void {
    if (this.merging === 'content') this.last!.content += text;
    else this.add({ content: text }, 'content');
  }

  reasoning(text: string): void {
    if (this.merging === 'reasoning') this.last!.reasoning_content += text;
    else this.add({ reasoning_content: text }, 'reasoning');
  }

  arguments(index: number, text: string): void {
    // A call's fragments are only interrupted by its end or the next call's start, both deltas: same index here.
    if (this.merging === 'arguments') this.last!.tool_calls![0]!.function!.arguments += text;
    else this.add({ tool_calls: [{ index, function: { arguments: text } }] }, 'arguments');
  }

  delta(delta: Delta): void {
    this.add(delta, 'other');
  }

  private add(delta: Delta, merging: Merging): void {
    this.deltas.push(delta);
    this.last = delta;
    this.merging = merging;
  }
}

/** Hands one delta to a sink: plain text and lone argument fragments through their own methods, the rest whole. */
export function deliverDelta(delta: Delta, sink: DeltaSink): void {
  const keys = Object.keys(delta);
  if (keys.length === 1) {
    if (delta.content !== undefined) return sink.content(delta.content);
    if (delta.reasoning_content !== undefined) return sink.reasoning(delta.reasoning_content);
    const parts = delta.tool_calls;
    const part = parts?.length === 1 ? parts[0]! : undefined;
    const fn = part?.function;
    if (part !== undefined && fn !== undefined && Object.keys(part).length === 2 && Object.keys(fn).length === 1 && fn.arguments !== undefined) {
      return sink.arguments(part.index, fn.arguments);
    }
  }
  sink.delta(delta);
}

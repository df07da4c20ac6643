import { isDeepStrictEqual } from 'node:util';
import { createStreamParser } from '../../src/index.js';
import type { DeltaSink, StreamParser } from '../../src/index.js';
import type { Delta, Tool } from '../../src/types.js';

export interface ParseCaseOptions {
  family: string;
  tools?: Tool[] | null;
  prefix?: string;
}

/** Deterministic ids, so batch and stream results compare exactly. */
export const idGenerator = ({ index }: { index: number; name: string }): string => `call_${index}`;

/**
 * Feeds the chunks to a fresh stream parser and returns every delta, finish included. A second parser is fed the same
 * chunks through the sink delivery (`pushTo`/`finishTo`); what its sink got, merged as `push` merges, must be the
 * deltas `push` returned for each chunk, so every chunking test checks both deliveries.
 */
export function streamDeltas(chunks: readonly string[], options: ParseCaseOptions): Delta[] {
  const parser = createStreamParser({ ...options, idGenerator });
  const sinkParser = createStreamParser({ ...options, idGenerator });
  const deltas: Delta[] = [];
  chunks.forEach((chunk, at) => {
    const pushed = parser.push(chunk);
    expectSameDelivery(pushed, viaSink((sink) => sinkParser.pushTo(chunk, sink)), `chunk ${at} ${JSON.stringify(chunk)}`);
    deltas.push(...pushed);
  });
  const finished = parser.finish();
  expectSameDelivery(finished, viaSink((sink) => sinkParser.finishTo(sink)), 'finish');
  deltas.push(...finished);
  return deltas;
}

function expectSameDelivery(pushed: Delta[], sunk: Delta[], where: string): void {
  if (!isDeepStrictEqual(pushed, sunk)) {
    throw new Error(`pushTo's sink got other output than push at ${where}:\n  push ${JSON.stringify(pushed)}\n  sink ${JSON.stringify(sunk)}`);
  }
}

/** One sink call, as the test sees it. */
export type SinkCall = ['content' | 'reasoning', string] | ['arguments', number, string] | ['delta', Delta];

/** A sink that records its calls. */
export function recordingSink(): DeltaSink & { calls: SinkCall[] } {
  const calls: SinkCall[] = [];
  return {
    calls,
    content: (text) => void calls.push(['content', text]),
    reasoning: (text) => void calls.push(['reasoning', text]),
    arguments: (index, text) => void calls.push(['arguments', index, text]),
    delta: (delta) => void calls.push(['delta', delta]),
  };
}

/**
 * What one delivery gave a sink, as the deltas `push` would return: consecutive text of one kind, or argument fragments
 * of one call, joined into one delta. Written here, apart from the library's own collector.
 */
export function viaSink(drive: (sink: DeltaSink) => void): Delta[] {
  const sink = recordingSink();
  drive(sink);
  const deltas: Delta[] = [];
  let previous: SinkCall[0] | undefined;
  for (const call of sink.calls) {
    const last = deltas[deltas.length - 1];
    if (call[0] === 'content' && previous === 'content') last!.content += call[1];
    else if (call[0] === 'reasoning' && previous === 'reasoning') last!.reasoning_content += call[1];
    else if (call[0] === 'arguments' && previous === 'arguments' && last!.tool_calls![0]!.index === call[1]) last!.tool_calls![0]!.function!.arguments += call[2];
    else if (call[0] === 'content') deltas.push({ content: call[1] });
    else if (call[0] === 'reasoning') deltas.push({ reasoning_content: call[1] });
    else if (call[0] === 'arguments') deltas.push({ tool_calls: [{ index: call[1], function: { arguments: call[2] } }] });
    else if (call[0] === 'delta') deltas.push(call[1]);
    previous = call[0];
  }
  return deltas;
}

/** Feeds chunks through `pushTo` and `finishTo` alone and returns what the sink got, as deltas. */
export function sinkStreamDeltas(parser: StreamParser, chunks: readonly string[]): Delta[] {
  return viaSink((sink) => {
    for (const chunk of chunks) parser.pushTo(chunk, sink);
    parser.finishTo(sink);
  });
}

/** One `write_file(path, content)` tool: code arguments full of escapes and marker look-alikes stream through it. */
export const writeFileTools: Tool[] = [
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];

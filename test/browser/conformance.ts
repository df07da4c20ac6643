// A conformance subset that runs wherever the core runs: in Node, in a Chromium page, in a Web Worker and in a vm
// context. It takes the core as a parameter (the bundle under test) and data as JSON, and returns plain JSON, so each
// environment's results can be compared with Node's and with the goldens. Type imports only: the bundle of this file
// carries no copy of the core.
import type * as Core from '../../src/core.js';
import type { ParsedMessage, Tool } from '../../src/types.js';

export interface RenderCase {
  family: string;
  name: string;
  /** The conversation file's text: parsed by the core's Python-JSON reader, so `1.0` stays a float. */
  conversation: string;
}

export interface ParseCase {
  family: string;
  name: string;
  completion: string;
  tools?: Tool[];
  prefix?: string;
  /** Chunkings to stream the completion in, as cut offsets (whole and one-code-point are added here). */
  cuts: number[][];
}

export interface ConformanceInput {
  now: string;
  render: RenderCase[];
  parse: ParseCase[];
}

export interface RenderOutcome {
  name: string;
  text?: string;
  spans?: Array<[number, number]>;
  error?: string;
}

export interface ParseOutcome {
  name: string;
  batch?: ParsedMessage;
  error?: string;
  chunkings: number;
  /** Chunkings whose accumulated deltas differ from the batch result. */
  streamMismatches: string[];
}

export interface ConformanceOutput {
  globals: { process: string; Buffer: string; require: string };
  render: RenderOutcome[];
  parse: ParseOutcome[];
}

/** Deterministic ids, so batch, stream and every environment compare exactly. */
const idGenerator = ({ index }: { index: number }): string => `call_${index}`;

export function runConformance(chatfmt: typeof Core, input: ConformanceInput): ConformanceOutput {
  const now = new Date(input.now);
  const render = input.render.map((item): RenderOutcome => {
    const name = `${item.family}/${item.name}`;
    try {
      const conversation = chatfmt.parsePythonJson(item.conversation) as Core.Conversation;
      const result = chatfmt.renderConversation(chatfmt.loadTemplate({ family: item.family }), conversation, { args: 'keep', now });
      return { name, text: result.text, spans: result.generationSpans };
    } catch (error) {
      return { name, error: String((error as Error).message) };
    }
  });
  const parse = input.parse.map((item): ParseOutcome => {
    const name = `${item.family}/${item.name}`;
    const options = { family: item.family, idGenerator, ...(item.tools ? { tools: item.tools } : {}), ...(item.prefix !== undefined ? { prefix: item.prefix } : {}) };
    let batch: ParsedMessage;
    try {
      batch = chatfmt.parse(item.completion, options);
    } catch (error) {
      return { name, error: String((error as Error).message), chunkings: 0, streamMismatches: [] };
    }
    const chunkings = [[item.completion], Array.from(item.completion), ...item.cuts.map((cuts) => splitAt(item.completion, cuts))];
    const streamMismatches: string[] = [];
    chunkings.forEach((chunks, i) => {
      const parser = chatfmt.createStreamParser(options);
      const deltas = chunks.flatMap((chunk) => parser.push(chunk));
      deltas.push(...parser.finish());
      if (!sameJson(chatfmt.accumulateDeltas(deltas), batch)) streamMismatches.push(`chunking ${i}: ${JSON.stringify(chunks.slice(0, 40))}`);
    });
    return { name, batch, chunkings: chunkings.length, streamMismatches };
  });
  const globals = { process: typeof globalThis.process, Buffer: typeof globalThis.Buffer, require: typeof (globalThis as { require?: unknown }).require };
  return { globals, render, parse };
}

function splitAt(text: string, cuts: number[]): string[] {
  const chunks: string[] = [];
  let from = 0;
  for (const at of cuts) {
    chunks.push(text.slice(from, at));
    from = at;
  }
  chunks.push(text.slice(from));
  return chunks;
}

/** Equal as JSON (what crosses to the test runner): key order aside, undefined members absent. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(JSON.parse(JSON.stringify(a))) === canonical(JSON.parse(JSON.stringify(b)));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

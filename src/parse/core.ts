import type { Diagnostic, FunctionTool, JsonSchema } from '../types.js';

/**
 * The contract between a family's grammar (a ParserCore) and the one streaming driver
 * (src/parse/stream.ts). A core turns raw text into events; the driver numbers calls, mints ids,
 * turns events into OpenAI deltas, and `parse` accumulates them, so batch = stream + finish.
 */
export type ParseEvent =
  | { kind: 'content'; text: string }
  | { kind: 'reasoning'; text: string }
  /** A call begins. `name` is complete and already validated against the declared tools. */
  | { kind: 'call-start'; name: string; id?: string; start: number }
  /** A fragment of the call's arguments JSON text; fragments concatenate to the final string. */
  | { kind: 'call-args'; text: string }
  | { kind: 'call-end'; end: number }
  /**
   * The open call turned out malformed or truncated. The driver withdraws it; `raw` (the call's
   * whole text so far) is emitted as content, in place, and the diagnostic is reported.
   */
  | { kind: 'call-withdraw'; raw: string; diagnostic: Diagnostic }
  | { kind: 'diagnostic'; diagnostic: Diagnostic };

/** The one kind of text a chunk settled on the fast lane (ParserCore.extend). */
export type RunKind = 'content' | 'reasoning' | 'call-args';

export interface ParserCore {
  /** Consumes the next chunk of completion text. Must accept chunks of any size, including ''. */
  push(chunk: string): ParseEvent[];
  /**
   * The fast lane for small streamed chunks, tried before push: when the chunk only extends the current content,
   * reasoning or argument run, or only continues structure push would wait on (a marker or call header not yet
   * complete), the core consumes it and returns the text it settles ('' for none), of kind `runKind`; otherwise
   * undefined, nothing changed, and the chunk goes to push. No event objects: the driver turns the text into its delta
   * directly (a 4-byte push has a few tens of nanoseconds to spend).
   */
  extend(chunk: string): string | undefined;
  /** The kind of the text the last successful extend returned. */
  readonly runKind: RunKind;
  /** End of output: releases held-back text, withdraws unfinished calls. */
  finish(): ParseEvent[];
}

/** Declared tools, indexed once per parser. */
export interface ToolIndex {
  /** True when the caller declared tools; then undeclared names are not calls. */
  readonly declared: boolean;
  has(name: string): boolean;
  /** The JSON schema of a parameter, or undefined when unknown. */
  parameterSchema(toolName: string, parameter: string): JsonSchema | undefined;
  /** The tool's whole `parameters` schema. */
  parameters(toolName: string): JsonSchema | undefined;
  readonly names: readonly string[];
}

export interface CoreOptions {
  tools: ToolIndex;
  /** The end of the rendered prompt (after the assistant header); sets the starting state. */
  prefix: string;
  family: string;
}

export type CoreFactory = (options: CoreOptions) => ParserCore;

export function indexTools(tools: readonly unknown[] | null | undefined): ToolIndex {
  const byName = new Map<string, JsonSchema | undefined>();
  for (const tool of tools ?? []) {
    const fn = functionOf(tool);
    if (fn) byName.set(fn.name, (fn.parameters as JsonSchema | undefined) ?? undefined);
  }
  const declared = byName.size > 0;
  return {
    declared,
    names: [...byName.keys()],
    has: (name) => !declared || byName.has(name),
    parameters: (name) => byName.get(name),
    parameterSchema(name, parameter) {
      const properties = byName.get(name)?.properties;
      if (!properties || typeof properties !== 'object') return undefined;
      const schema = (properties as Record<string, unknown>)[parameter];
      return schema && typeof schema === 'object' ? (schema as JsonSchema) : undefined;
    },
  };
}

function functionOf(tool: unknown): FunctionTool['function'] | undefined {
  if (!tool || typeof tool !== 'object') return undefined;
  const record = tool as Record<string, unknown>;
  const fn = (record.function ?? record) as Record<string, unknown>;
  return typeof fn.name === 'string' ? (fn as FunctionTool['function']) : undefined;
}

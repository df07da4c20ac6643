// Small readers for request bodies: each returns the value or throws a GatewayFailure naming the JSON path, so a
// protocol's parseRequest reads like the request's shape. Shared by every client protocol.
import { fail, GatewayFailure } from '../core/failure.js';
import type { GatewayError, Result, SamplingOptions, ToolChoice } from '../core/types.js';
import type { ContentPart, Tool } from '../../types.js';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How deep a request body may nest. V8's JSON.parse takes any depth, but JSON.stringify (backend request bodies,
 * echoed settings, tool arguments) overflows the stack a few thousand levels down, as do recursive readers. 1,024
 * leaves room for the request's own envelope around tool arguments nested as deep as `--args auto` reads them
 * (MAX_JSON_DEPTH, 1,000 levels), so those still get that check's message.
 */
export const MAX_BODY_DEPTH = 1024;

export function invalid(param: string, message: string): never {
  throw fail('INVALID_REQUEST', `${param}: ${message}`, { param });
}

export function optionalNumber(body: Json, key: string, path = key): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(path, 'expected a number');
  return value;
}

/** The numeric sampling settings, and which request key each protocol spells them with. */
type NumericSampling = 'maxTokens' | 'temperature' | 'topP' | 'topK' | 'seed';

/**
 * Reads the numeric sampling settings a protocol names (`{maxTokens: 'max_output_tokens', temperature:
 * 'temperature'}`) into SamplingOptions: absent or null keys are left out, anything but a finite number is refused.
 */
export function numericSampling(body: Json, keys: Partial<Record<NumericSampling, string>>): SamplingOptions {
  const options: SamplingOptions = {};
  for (const [setting, key] of Object.entries(keys) as Array<[NumericSampling, string]>) {
    const value = optionalNumber(body, key);
    if (value !== undefined) options[setting] = value;
  }
  return options;
}

export function optionalString(body: Json, key: string, path = key): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') invalid(path, 'expected a string');
  return value;
}

export function optionalBoolean(body: Json, key: string, path = key): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') invalid(path, 'expected true or false');
  return value;
}

/** `stop` as a string or a list of strings. */
export function stopStrings(value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return invalid(path, 'expected a string or an array of strings');
}

/**
 * Content as the templates take it: a string, or null. An array of text parts becomes their texts joined by a newline
 * (as vLLM does: few chat templates read part lists); an array holding other parts (images) is passed through whole.
 */
export function normaliseContent(value: unknown, path: string): string | ContentPart[] | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return invalid(path, 'expected a string, null or an array of content parts');
  const texts: string[] = [];
  value.forEach((part, index) => {
    if (!isObject(part) || typeof part.type !== 'string') invalid(`${path}[${index}]`, 'expected a content part with a "type"');
    if (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') {
      if (typeof part.text !== 'string') invalid(`${path}[${index}].text`, 'expected a string');
      texts.push(part.text);
    }
  });
  return texts.length === value.length ? texts.join('\n') : (value as ContentPart[]);
}

/** Runs a request reader: a GatewayFailure it throws becomes the error result, anything else is a bug and rethrows. */
export function readRequest<T>(read: () => T): Result<T, GatewayError> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof GatewayFailure) return { ok: false, error: error.error };
    throw error;
  }
}

export function objectAt(value: unknown, path: string): Json {
  if (!isObject(value)) invalid(path, 'expected an object');
  return value;
}

export function arrayAt(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) invalid(path, 'expected an array');
  return value;
}

export function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string') invalid(path, 'expected a string');
  return value;
}

/**
 * A tool choice naming one tool, which must be declared: the gateway pre-fills a call to it, and the parser would then
 * withdraw that call as undeclared, so the client would get text where it demanded a call.
 */
export function namedToolChoice(name: string, tools: readonly Tool[], path: string): ToolChoice {
  if (!tools.some((tool) => isObject(tool.function) && tool.function.name === name)) invalid(path, `${JSON.stringify(name)} is not one of the declared tools`);
  return { type: 'function', name };
}

/** Tool-call arguments as JSON text: clients send a JSON string (the OpenAI wire form) or, against the spec, an object. */
export function argumentsText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (isObject(value)) return JSON.stringify(value);
  return invalid(path, 'expected a JSON string or an object');
}

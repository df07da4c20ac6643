import { ChatfmtError } from '../errors.js';
import {
  compileResponseTemplate,
  createResponseParser,
  ResponseTemplateError,
  type CompiledResponseTemplate,
  type ResponseEvent,
  type ResponseParser,
  type ResponseTemplateJson,
} from '../response-template/index.js';
import { OpenAIResponseStream } from '../response-template/openai.js';
import type { Tool } from '../types.js';
import { randomCallId, type IdGenerator } from './ids.js';

/** Parsing with a model's response template (transformers' `response_template`) instead of a chatfmt family. */
export interface ResponseTemplateParseOptions {
  /** The template as JSON (`loadTemplate(...).responseTemplate`) or compiled (`compileResponseTemplate`). */
  responseTemplate: ResponseTemplateJson | CompiledResponseTemplate;
  /**
   * transformers' `prefix`: the rendered prompt, or its tail; cut after the template's last start anchor and fed
   * before the completion. Default '' (transformers requires it; '' is its explicit "no prefix").
   */
  prefix?: string;
  /** OpenAI tools: call arguments are cast by their parameter schemas (transformers' `tools=`). */
  tools?: readonly Tool[] | null;
  /**
   * 'dict' (default): transformers' dict, byte-exact, and its errors thrown as ChatfmtError RESPONSE_TEMPLATE_*.
   * 'openai': chatfmt's `{content, reasoning_content, tool_calls}` (and OpenAI deltas when streaming); failures keep
   * the raw text as content with a PARSE_RESPONSE_TEMPLATE error diagnostic.
   */
  output?: 'dict' | 'openai';
  /** With output 'openai': `parse` throws PARSE_STRICT on an error diagnostic. */
  strict?: boolean;
  /** With output 'openai': ids for calls whose template captured none. */
  idGenerator?: IdGenerator;
}

/** A response-template parser in dict mode: transformers' `ResponseParser` with chatfmt's push/finish names. */
export interface ResponseStreamParser {
  /** Events of the prefix (transformers' `initial_events`). */
  readonly initialEvents: ResponseEvent[];
  push(chunk: string): ResponseEvent[];
  /** End of output: the final events and transformers' dict. */
  finish(): { message: Record<string, unknown>; events: ResponseEvent[] };
}

export function isResponseTemplateOptions(options: object): options is ResponseTemplateParseOptions {
  return 'responseTemplate' in options && (options as { responseTemplate?: unknown }).responseTemplate !== undefined;
}

/** The executor raised on the model's output (feed or finalize), not on the template (load). */
export function isOutputMismatch(error: unknown): boolean {
  return error instanceof ResponseTemplateError && error.phase !== 'load';
}

function templateSource(options: ResponseTemplateParseOptions): Record<string, unknown> {
  const template = options.responseTemplate as unknown;
  if (typeof template !== 'object' || template === null || Array.isArray(template)) {
    throw new ChatfmtError('INPUT_INVALID', 'responseTemplate must be a response template (a JSON object) or a compiled one');
  }
  const source = (template as { source?: unknown }).source;
  return typeof source === 'object' && source !== null && !Array.isArray(source) ? (source as Record<string, unknown>) : (template as Record<string, unknown>);
}

function newParser(options: ResponseTemplateParseOptions): ResponseParser {
  // The executor's errors are ChatfmtErrors carrying transformers' Python exception type (`pythonType`).
  return createResponseParser(compileResponseTemplate(options.responseTemplate), { prefix: options.prefix ?? '', tools: options.tools ?? null });
}

/** Dict mode: transformers' parser under chatfmt's push/finish names. */
export function createResponseStreamParser(options: ResponseTemplateParseOptions): ResponseStreamParser {
  const parser = newParser(options);
  return { initialEvents: parser.initialEvents, push: (chunk) => parser.feed(chunk), finish: () => parser.finalize() };
}

/** OpenAI mode: deltas. Template errors (load time) still throw: they are the caller's, not the model's. */
export function createOpenAIResponseParser(options: ResponseTemplateParseOptions): OpenAIResponseStream {
  const compiled = compileResponseTemplate(options.responseTemplate);
  const create = () => createResponseParser(compiled, { prefix: options.prefix ?? '', tools: options.tools ?? null, holdEndDependent: true });
  return new OpenAIResponseStream(create, templateSource(options), options.idGenerator ?? randomCallId, 'response-template');
}

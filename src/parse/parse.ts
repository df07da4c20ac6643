import { ChatfmtError } from '../errors.js';
import type { ParsedMessage } from '../types.js';
import { MessageAccumulator } from './accumulate.js';
import { isResponseTemplateOptions, type ResponseTemplateParseOptions } from './response.js';
import { createStreamParser, MAX_INPUT_CHARS, type ParseOptions, type StreamParser } from './stream.js';

const BATCH_SLICE = 64 * 1024;

/** With a response template and `output: 'openai'`: chatfmt's message, failures as diagnostics. */
export function parse(text: string, options: ResponseTemplateParseOptions & { output: 'openai' }): ParsedMessage;
/** With a response template: transformers' `parse_response` dict, byte-exact; its errors throw (ChatfmtError). */
export function parse(text: string, options: ResponseTemplateParseOptions & { output?: 'dict' }): Record<string, unknown>;
/**
 * Parses a whole completion: the streaming parser fed one chunk, finished, and accumulated, so batch
 * and stream results cannot disagree. Never throws on model output unless `strict`.
 * (The family form stays the last overload: `ReturnType<typeof parse>` is its ParsedMessage.)
 */
export function parse(text: string, options: ParseOptions): ParsedMessage;
export function parse(text: string, options: ParseOptions | ResponseTemplateParseOptions): ParsedMessage | Record<string, unknown> {
  if (typeof text !== 'string') throw new ChatfmtError('INPUT_INVALID', 'parse() expects the completion text as a string');
  if (text.length > MAX_INPUT_CHARS) throw new ChatfmtError('INPUT_TOO_LARGE', `completion longer than ${MAX_INPUT_CHARS} characters`);
  if (isResponseTemplateOptions(options) && options.output !== 'openai') {
    // transformers' parse_response: one feed, then finalize.
    const parser = createStreamParser({ ...options, output: 'dict' });
    parser.push(text);
    return parser.finish().message;
  }
  const parser: StreamParser = isResponseTemplateOptions(options) ? createStreamParser({ ...options, output: 'openai' }) : createStreamParser(options);
  // Fed in slices, the same way a stream is: the result cannot differ, and the engine's per-push event arrays stay
  // small, which keeps time linear on huge inputs (one push of megabytes made the collector the bottleneck). The
  // output goes straight into the message through the sink delivery: no OpenAI delta per piece of text.
  const accumulator = new MessageAccumulator();
  for (let at = 0; at < text.length; at += BATCH_SLICE) parser.pushTo(text.slice(at, at + BATCH_SLICE), accumulator);
  parser.finishTo(accumulator);
  const message = accumulator.message();
  if (options.strict) {
    const error = message.diagnostics.find((d) => d.severity === 'error');
    if (error) {
      throw new ChatfmtError('PARSE_STRICT', `${error.code}: ${error.message.replace(/\s+/g, ' ')}`, { diagnostics: message.diagnostics });
    }
  }
  return message;
}

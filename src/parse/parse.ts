import { ChatfmtError } from '../errors.js';
import type { ParsedMessage } from '../types.js';
import { accumulateDeltas } from './accumulate.js';
import { createStreamParser, MAX_INPUT_CHARS, type ParseOptions } from './stream.js';

/**
 * Parses a whole completion: the streaming parser fed one chunk, finished, and accumulated, so batch
 * and stream results cannot disagree. Never throws on model output unless `strict`.
 */
export function parse(text: string, options: ParseOptions): ParsedMessage {
  if (typeof text !== 'string') throw new ChatfmtError('INPUT_INVALID', 'parse() expects the completion text as a string');
  if (text.length > MAX_INPUT_CHARS) throw new ChatfmtError('INPUT_TOO_LARGE', `completion longer than ${MAX_INPUT_CHARS} characters`);
  const parser = createStreamParser(options);
  const deltas = parser.push(text);
  for (const delta of parser.finish()) deltas.push(delta);
  const message = accumulateDeltas(deltas);
  if (options.strict) {
    const error = message.diagnostics.find((d) => d.severity === 'error');
    if (error) {
      throw new ChatfmtError('PARSE_STRICT', `${error.code}: ${error.message.replace(/\s+/g, ' ')}`, { diagnostics: message.diagnostics });
    }
  }
  return message;
}

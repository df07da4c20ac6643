import { ChatfmtError } from '../errors.js';
import type { Delta, ParsedMessage } from '../types.js';
import { accumulateDeltas } from './accumulate.js';
import { createStreamParser, MAX_INPUT_CHARS, type ParseOptions } from './stream.js';

const BATCH_SLICE = 64 * 1024;

/**
 * Parses a whole completion: the streaming parser fed one chunk, finished, and accumulated, so batch
 * and stream results cannot disagree. Never throws on model output unless `strict`.
 */
export function parse(text: string, options: ParseOptions): ParsedMessage {
  if (typeof text !== 'string') throw new ChatfmtError('INPUT_INVALID', 'parse() expects the completion text as a string');
  if (text.length > MAX_INPUT_CHARS) throw new ChatfmtError('INPUT_TOO_LARGE', `completion longer than ${MAX_INPUT_CHARS} characters`);
  const parser = createStreamParser(options);
  // Fed in slices, the same way a stream is: the result cannot differ, and the engine's per-push event arrays stay
  // small, which keeps time linear on huge inputs (one push of megabytes made the collector the bottleneck).
  const deltas: Delta[] = [];
  for (let at = 0; at < text.length; at += BATCH_SLICE) for (const delta of parser.push(text.slice(at, at + BATCH_SLICE))) deltas.push(delta);
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

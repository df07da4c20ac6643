import type { ArgsCodec, CodecContext, CodecResult } from '../grammar.js';
import { INVALID, JsonValueScanner, NEED_MORE } from '../json-scan.js';
import { skipWhitespace } from '../trim.js';

/**
 * Arguments written as a JSON object (DeepSeek, Kimi, harmony-like): the model's own text is streamed
 * as it arrives (trimmed), never re-serialised. An empty argument list means `{}`.
 */
export function jsonArgs(context: CodecContext): ArgsCodec {
  let scanner: JsonValueScanner | undefined;
  return {
    feed(buf, pos, final, sink): CodecResult {
      if (!scanner) {
        pos = skipWhitespace(buf, pos);
        if (pos >= buf.length) return { status: 'more', pos };
        const c = buf[pos]!;
        if (c !== '{') {
          if (context.followers.at(buf, pos) !== undefined) {
            sink.args('{}');
            return { status: 'done', pos };
          }
          if (context.followers.couldStartAt(buf, pos) && !final) return { status: 'more', pos };
          return notAnObject(c, pos);
        }
        scanner = new JsonValueScanner();
      }
      return streamValue(scanner, buf, pos, final, (piece) => sink.args(piece));
    },
    extend(chunk) {
      return scanner !== undefined && scanner.extendString(chunk) ? chunk : undefined;
    },
  };
}

/** Streams one JSON value's own text as it is validated (the scanner is strict, so no re-parse is needed). */
export function streamValue(scanner: JsonValueScanner, buf: string, pos: number, final: boolean, emit: (piece: string) => void): CodecResult {
  const end = scanner.scan(buf, pos, final);
  if (end === INVALID) {
    return { status: 'error', pos: scanner.errorAt, code: 'PARSE_BAD_ARGS_JSON', message: 'invalid JSON in the arguments' };
  }
  const stop = end === NEED_MORE ? buf.length : end;
  if (stop > pos) emit(stop - pos === buf.length ? buf : buf.slice(pos, stop));
  return { status: end === NEED_MORE ? 'more' : 'done', pos: stop };
}

/**
 * Why arguments that do not open an object are refused. A JSON string there is double-encoded arguments (the model
 * wrote the OpenAI wire's string form): not unwrapped, because these families' arguments are the model's own JSON
 * text, streamed as it arrives, and a call whose text was a string is not run on a guess; the diagnostic says so.
 * (Hermes-style call objects, whose `arguments` field may legitimately hold JSON text, do unwrap it, with a warning.)
 */
export const DOUBLE_ENCODED = 'the arguments are a JSON string, not an object: double-encoded arguments are not unwrapped, so the call is not run';

function notAnObject(c: string, pos: number): CodecResult {
  if (c === '"') return { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: DOUBLE_ENCODED };
  const jsonish = c === '[' || c === '"' || c === '-' || (c >= '0' && c <= '9') || c === 't' || c === 'f' || c === 'n';
  return jsonish
    ? { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: 'the arguments are not a JSON object' }
    : { status: 'error', pos, code: 'PARSE_BAD_ARGS_JSON', message: 'expected a JSON object as arguments' };
}

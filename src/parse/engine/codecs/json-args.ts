import type { ArgsCodec, CallSink, CodecContext, CodecResult } from '../grammar.js';
import { INVALID, JsonValueScanner, NEED_MORE, isPlainObject, tryParseJson } from '../json-scan.js';
import { skipWhitespace } from '../trim.js';

/**
 * Arguments written as a JSON object (DeepSeek, Kimi, harmony-like): the model's own text is streamed
 * as it arrives (trimmed), never re-serialised. An empty argument list means `{}`.
 */
export function jsonArgs(context: CodecContext): ArgsCodec {
  let scanner: JsonValueScanner | undefined;
  const parts: string[] = [];
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
      return streamValue(scanner, parts, buf, pos, final, sink);
    },
  };
}

/** Streams one JSON object value; validates it with JSON.parse when it is complete. */
export function streamValue(
  scanner: JsonValueScanner,
  parts: string[],
  buf: string,
  pos: number,
  final: boolean,
  sink: Pick<CallSink, 'args'> | undefined,
): CodecResult {
  const end = scanner.scan(buf, pos, final);
  if (end === INVALID) {
    return { status: 'error', pos: scanner.errorAt, code: 'PARSE_BAD_ARGS_JSON', message: 'invalid JSON in the arguments' };
  }
  const stop = end === NEED_MORE ? buf.length : end;
  if (stop > pos) {
    const piece = buf.slice(pos, stop);
    parts.push(piece);
    sink?.args(piece);
  }
  if (end === NEED_MORE) return { status: 'more', pos: stop };
  return checkObject(parts.join(''), stop);
}

export function checkObject(text: string, pos: number): CodecResult {
  const parsed = tryParseJson(text);
  if (!parsed.ok) return { status: 'error', pos, code: 'PARSE_BAD_ARGS_JSON', message: 'the arguments are not valid JSON' };
  if (!isPlainObject(parsed.value)) {
    return { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: 'the arguments are not a JSON object' };
  }
  return { status: 'done', pos };
}

function notAnObject(c: string, pos: number): CodecResult {
  const jsonish = c === '[' || c === '"' || c === '-' || (c >= '0' && c <= '9') || c === 't' || c === 'f' || c === 'n';
  return jsonish
    ? { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: 'the arguments are not a JSON object' }
    : { status: 'error', pos, code: 'PARSE_BAD_ARGS_JSON', message: 'expected a JSON object as arguments' };
}

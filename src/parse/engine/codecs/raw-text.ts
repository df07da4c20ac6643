import { jsonStringFragment } from '../../args/coerce.js';
import { isHighSurrogate } from '../../../util/utf16.js';
import type { ArgsCodec, CodecContext, CodecResult } from '../grammar.js';
import { MarkerSet } from '../markers.js';
import { skipWhitespace } from '../trim.js';

export interface RawTextCallOptions {
  /** Candidate tool names, in order of preference: the first one the declared tools accept names the call. */
  names: readonly string[];
  /** The one argument that receives the text. */
  key: string;
  /** Markers that end the text (not consumed): stop strings, the next call's opener. */
  end: readonly string[];
}

/**
 * Free text after a call opener as the single string argument of an implied tool: Llama 3 writes code for its
 * interpreter as `<|python_tag|>CODE<|eom_id|>`. Leading whitespace is dropped, the rest is kept verbatim (code is
 * never trimmed) and streamed as JSON string fragments; a possible partial end marker is held back.
 */
export function rawTextCall(options: RawTextCallOptions): (context: CodecContext) => ArgsCodec {
  const ends = new MarkerSet(options.end);
  return (context) => {
    let started = false;
    return {
      feed(buf, pos, final, sink): CodecResult {
        if (!started) {
          pos = skipWhitespace(buf, pos);
          if (!final && (pos >= buf.length || ends.couldStartAt(buf, pos))) return { status: 'more', pos };
          if (pos >= buf.length || ends.at(buf, pos) !== undefined) {
            return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: 'nothing follows the call opener' };
          }
          const name = options.names.find((candidate) => context.tools.has(candidate)) ?? options.names[0]!;
          const refused = sink.start(name);
          if (refused) return { status: 'error', pos, code: refused, message: `not a declared tool: ${name}` };
          started = true;
          sink.args(`{${JSON.stringify(options.key)}:"`);
        }
        const hit = ends.find(buf, pos);
        let limit = hit ? hit.at : final ? buf.length : ends.partialStart(buf, pos);
        // The first half of a surrogate pair waits in the buffer for its second: escaped alone it is written as
        // \udXXX, where the whole character, as a batch parse sees it, is written as itself.
        if (!hit && !final && limit > pos && isHighSurrogate(buf.charCodeAt(limit - 1))) limit--;
        if (limit > pos) sink.args(jsonStringFragment(buf.slice(pos, limit)));
        if (!hit && !final) return { status: 'more', pos: limit };
        sink.args('"}');
        return { status: 'done', pos: limit };
      },
    };
  };
}

import type { ArgsCodec, CodecFactory, CodecResult } from '../grammar.js';
import { skipWhitespace } from '../trim.js';

/**
 * A JSON list of call objects after one opener (Mistral v3/v7: `[TOOL_CALLS] [{…}, {…}]`). Each element is read by
 * `element` (a codec of one call object) and is a call of its own: the codec answers `next` after each element and
 * after each separator, and `done` at the list's end. A list whose `]` never came is accepted, as a call whose close
 * tag never came is.
 */
export function jsonList(element: CodecFactory): CodecFactory {
  return (context): ArgsCodec => {
    let state: 'open' | 'first' | 'element' | 'after' | 'separator' = 'open';
    let current: ArgsCodec | undefined;
    return {
      feed(buf, pos, final, sink): CodecResult {
        for (;;) {
          if (state === 'element') {
            const result = current!.feed(buf, pos, final, sink);
            if (result.status !== 'done') return result;
            state = 'after';
            current = undefined;
            return { status: 'next', pos: result.pos };
          }
          pos = skipWhitespace(buf, pos);
          if (pos >= buf.length) return { status: final && (state === 'after' || state === 'separator') ? 'done' : 'more', pos };
          const c = buf[pos];
          if (state === 'open') {
            if (c !== '[') return syntax(pos, 'expected a JSON list of calls');
            pos++;
            state = 'first';
          } else if (state === 'first') {
            if (c === ']') return syntax(pos, 'an empty list of calls');
            state = 'element';
            current = element(context);
          } else if (state === 'separator') {
            // The separator belongs to no call: the next call's text (restored if it fails) starts here.
            state = 'element';
            current = element(context);
            return { status: 'next', pos };
          } else if (c === ',') {
            pos++;
            state = 'separator';
          } else if (c === ']') {
            return { status: 'done', pos: pos + 1 };
          } else {
            return syntax(pos, 'expected "," or "]" after a call object');
          }
        }
      },
      extend(chunk) {
        return state === 'element' ? current!.extend?.(chunk) : undefined;
      },
    };
  };
}

function syntax(pos: number, message: string): CodecResult {
  return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message };
}

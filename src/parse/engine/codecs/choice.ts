import type { ArgsCodec, CodecContext, CodecFactory } from '../grammar.js';
import { skipWhitespace } from '../trim.js';

export interface CodecChoice {
  /** Whether the arguments at `pos` (past whitespace) are this codec's: undefined while more text could decide. */
  test: (buf: string, pos: number, final: boolean) => boolean | undefined;
  codec: CodecFactory;
}

/**
 * One opener, several argument syntaxes told apart by how they begin (after `<|python_tag|>` Llama 3 writes a JSON
 * call object, `TOOL.call(…)` or raw code): the first choice whose test passes reads the call, else `otherwise`.
 */
export function firstMatching(choices: readonly CodecChoice[], otherwise: CodecFactory): CodecFactory {
  return (context: CodecContext) => {
    let chosen: ArgsCodec | undefined;
    return {
      feed(buf, pos, final, sink) {
        if (!chosen) {
          const start = skipWhitespace(buf, pos);
          if (start >= buf.length && !final) return { status: 'more', pos: start };
          for (const choice of choices) {
            const verdict = choice.test(buf, start, final);
            if (verdict === undefined) return { status: 'more', pos: start };
            if (verdict) {
              chosen = choice.codec(context);
              break;
            }
          }
          chosen ??= otherwise(context);
          pos = start;
        }
        return chosen.feed(buf, pos, final, sink);
      },
      extend(chunk) {
        return chosen?.extend?.(chunk);
      },
    };
  };
}

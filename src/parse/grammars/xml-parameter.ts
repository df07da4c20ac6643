import { taggedArgs } from '../engine/codecs/tagged-args.js';
import type { Grammar } from '../engine/grammar.js';

/**
 * The `<function=N><parameter=K>raw</parameter></function>` argument syntax that Qwen3-Coder and
 * Seed-OSS share; only the wrapper around the call (`callClose`) differs. Not a family by itself.
 */
export function xmlParameterArgs(callClose: string): Grammar['args'] {
  return taggedArgs({
    keyOpen: '<parameter=',
    keyClose: '>',
    valueClose: '</parameter>',
    // vLLM/SGLang: a value whose close tag is missing ends at the next parameter or the function end.
    valueImplicitEnds: ['<parameter=', '</function>'],
    argsEnd: [
      { marker: '</function>', consume: true },
      { marker: callClose, consume: false },
    ],
    stripOneNewline: true,
    blockOpen: '<function=',
    blockCloseNeedsFollower: true,
  });
}

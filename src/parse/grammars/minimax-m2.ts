import { familyInfo } from '../../families/info.js';
import { taggedArgs } from '../engine/codecs/tagged-args.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';

/**
 * `<minimax:tool_call>⏎<invoke name="N">⏎<parameter name="K">raw</parameter>⏎</invoke>⏎</minimax:tool_call>`
 * (FORMATS-NEXT §3). Values are raw text typed by the schema alone (an undeclared `5` stays a string); the template writes them without
 * wrapping newlines, so none are stripped. The generation prompt opens `<think>⏎`, so the completion starts inside
 * reasoning.
 */
export const minimaxM2Grammar: Grammar = {
  id: 'minimax-m2',
  reasoning: { open: ['<think>'], close: ['</think>'] },
  section: { open: ['<minimax:tool_call>'], close: ['</minimax:tool_call>'] },
  call: { open: ['<invoke name="'], close: ['</invoke>'] },
  header: nameUntil({ delimiters: ['">'] }),
  args: taggedArgs({
    keyOpen: '<parameter name="',
    keyClose: '">',
    valueClose: '</parameter>',
    valueImplicitEnds: ['<parameter name="', '</invoke>'],
    argsEnd: [{ marker: '</invoke>', consume: false }],
    stripOneNewline: false,
    // The schema is the only type source (FORMATS-NEXT §3): without one, vLLM keeps `5` as the string "5".
    untypedValues: 'strings',
  }),
  stopStrings: familyInfo['minimax-m2'].stopStrings,
  defaultPrefix: '<think>\n',
};

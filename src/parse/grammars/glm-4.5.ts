import { familyInfo } from '../../families/info.js';
import { taggedArgs } from '../engine/codecs/tagged-args.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';

/**
 * `<tool_call>N\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>` (FORMATS §5); GLM-4.7 drops
 * the newlines and allows `<tool_call>N</tool_call>`. Values are kept whole, spaces and newlines at their ends
 * included: the template writes `<arg_value>V</arg_value>` with no wrapping newline to strip (a file's content ends in
 * its own newline), as vLLM's parser keeps them.
 */
export const glm45Grammar: Grammar = {
  id: 'glm-4.5',
  reasoning: { open: ['<think>'], close: ['</think>'] },
  call: { open: ['<tool_call>'], close: ['</tool_call>'] },
  // The name ends at a newline or the first tag; trimmed so a trailing newline cannot break the schema lookup.
  header: nameUntil({ delimiters: ['\n', '<arg_key>', '</tool_call>'], keep: ['<arg_key>', '</tool_call>'] }),
  args: taggedArgs({
    keyOpen: '<arg_key>',
    keyClose: '</arg_key>',
    valueOpen: '<arg_value>',
    valueClose: '</arg_value>',
    // Values are raw text that may hold any tag (even `</tool_call>`): only `</arg_value>` ends one.
    valueImplicitEnds: [],
    argsEnd: [{ marker: '</tool_call>', consume: false }],
    stripOneNewline: false,
  }),
  stopStrings: familyInfo['glm-4.5'].stopStrings,
  defaultPrefix: '',
};

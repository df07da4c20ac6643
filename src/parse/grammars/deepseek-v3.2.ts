import { familyInfo } from '../../families/info.js';
import { taggedArgs } from '../engine/codecs/tagged-args.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';
import { deepseek } from './deepseek-markers.js';

const DSML = '｜DSML｜';

/**
 * DSML (FORMATS-NEXT §2): `<｜DSML｜function_calls>⏎<｜DSML｜invoke name="N">⏎<｜DSML｜parameter name="K"
 * string="true|false">V</｜DSML｜parameter>⏎</｜DSML｜invoke>⏎</｜DSML｜function_calls>`. DeepSeek-V4 writes the
 * same block as `<｜DSML｜tool_calls>`; both wrappers are read, so a V4 model that falls back to the V3.2 spelling
 * still makes its call. Each value carries its own typing (`string="true"` raw text, `"false"` JSON), weighed
 * against the schema by the tagged-args codec. Values are verbatim: nothing wraps them, so nothing is stripped.
 * The thinking prompt ends `<｜Assistant｜><think>` (the template's default), so the completion starts in reasoning.
 */
export const deepseekV32Grammar: Grammar = {
  id: 'deepseek-v3.2',
  reasoning: deepseek.think,
  section: {
    open: [`<${DSML}function_calls>`, `<${DSML}tool_calls>`],
    close: [`</${DSML}function_calls>`, `</${DSML}tool_calls>`],
  },
  call: { open: [`<${DSML}invoke name="`], close: [`</${DSML}invoke>`] },
  header: nameUntil({ delimiters: ['">'] }),
  args: taggedArgs({
    keyOpen: `<${DSML}parameter `,
    keyClose: '>',
    valueClose: `</${DSML}parameter>`,
    valueImplicitEnds: [`<${DSML}parameter `, `</${DSML}invoke>`],
    argsEnd: [{ marker: `</${DSML}invoke>`, consume: false }],
    stripOneNewline: false,
    blockOpen: `<${DSML}invoke name="`,
    keyAttributes: { name: 'name', typing: { attribute: 'string', string: 'true', json: 'false' } },
    // The model sometimes nests every argument in one of these (FORMATS-NEXT §2 edge case 4).
    wrapperKeys: ['arguments', 'input'],
  }),
  stopStrings: familyInfo['deepseek-v3.2'].stopStrings,
  defaultPrefix: '<think>',
};

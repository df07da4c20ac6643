import { familyInfo } from '../../families/info.js';
import { jsonArgs } from '../engine/codecs/json-args.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';
import { deepseek } from './deepseek-markers.js';

/**
 * `<｜tool▁calls▁begin｜>(<｜tool▁call▁begin｜>N<｜tool▁sep｜>{json}<｜tool▁call▁end｜>)+<｜tool▁calls▁end｜>`
 * (FORMATS §2). The non-thinking prompt ends with `</think>`, so by default the completion is content.
 */
export const deepseekV31Grammar: Grammar = {
  id: 'deepseek-v3.1',
  reasoning: deepseek.think,
  section: { open: [...deepseek.callsBegin, deepseek.callsShort], close: deepseek.callsEnd },
  call: { open: deepseek.callBegin, close: deepseek.callEnd },
  header: nameUntil({ delimiters: deepseek.sep }),
  args: jsonArgs,
  stopStrings: familyInfo['deepseek-v3.1'].stopStrings,
  defaultPrefix: '</think>',
};

import { familyInfo } from '../../families/info.js';
import type { Grammar } from '../engine/grammar.js';
import { functionTag } from '../engine/headers.js';
import { xmlParameterArgs } from './xml-parameter.js';

/**
 * `<seed:tool_call>\n<function=N>\n<parameter=K>raw</parameter>\n</function>\n</seed:tool_call>` (FORMATS §6).
 * `<seed:cot_budget_reflect>` blocks are plain text inside `<seed:think>`, so they stay in reasoning; one
 * written in content is moved to reasoning (never content).
 */
export const seedOssGrammar: Grammar = {
  id: 'seed-oss',
  reasoning: { open: ['<seed:think>'], close: ['</seed:think>'] },
  // Outside `<seed:think>` (e.g. after the budget-0 prefill) a reflection block still goes to reasoning.
  aside: { open: ['<seed:cot_budget_reflect>'], close: ['</seed:cot_budget_reflect>'] },
  call: { open: ['<seed:tool_call>'], close: ['</seed:tool_call>'] },
  header: functionTag('<function=', '>'),
  args: xmlParameterArgs('</seed:tool_call>'),
  stopStrings: familyInfo['seed-oss'].stopStrings,
  defaultPrefix: '',
};

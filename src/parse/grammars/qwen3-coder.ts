import { familyInfo } from '../../families/info.js';
import type { Grammar } from '../engine/grammar.js';
import { functionTag } from '../engine/headers.js';
import { xmlParameterArgs } from './xml-parameter.js';

/**
 * `<tool_call>\n<function=N>\n<parameter=K>\nraw\n</parameter>\n</function>\n</tool_call>` (FORMATS §1b);
 * Qwen3.5 adds `<think>` and may open a call before `</think>`.
 */
export const qwen3CoderGrammar: Grammar = {
  id: 'qwen3-coder',
  reasoning: { open: ['<think>'], close: ['</think>'] },
  call: { open: ['<tool_call>'], close: ['</tool_call>'] },
  header: functionTag('<function=', '>'),
  // Models also drop the wrapper and write <function=…>…</function> alone (issue 10).
  bareOpen: ['<function='],
  args: xmlParameterArgs('</tool_call>'),
  stopStrings: familyInfo['qwen3-coder'].stopStrings,
  defaultPrefix: '',
};

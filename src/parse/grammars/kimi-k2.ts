import { familyInfo } from '../../families/info.js';
import { jsonArgs } from '../engine/codecs/json-args.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';

/**
 * `<|tool_calls_section_begin|><|tool_call_begin|>functions.N:I<|tool_call_argument_begin|>{json}<|tool_call_end|>…`
 * (FORMATS §3). The wire id is the call id, verbatim; the name is between `functions.` and the last `:`.
 */
export const kimiK2Grammar: Grammar = {
  id: 'kimi-k2',
  reasoning: { open: ['<think>'], close: ['</think>'] },
  section: {
    open: ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'],
    close: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'],
  },
  call: { open: ['<|tool_call_begin|>'], close: ['<|tool_call_end|>'] },
  header: nameUntil({ delimiters: ['<|tool_call_argument_begin|>'], map: kimiId }),
  args: jsonArgs,
  stopStrings: familyInfo['kimi-k2'].stopStrings,
  defaultPrefix: '',
};

/** `functions.NAME:IDX` → name NAME, id verbatim. Names may hold `-` and `.`; other ids name the call themselves. */
function kimiId(text: string): { name: string; id?: string } {
  const colon = text.lastIndexOf(':');
  const suffix = colon >= 0 ? text.slice(colon + 1) : '';
  if (colon < 0 || suffix.length === 0 || !/^[0-9]+$/.test(suffix)) return { name: text };
  const body = text.slice(0, colon);
  return { name: body.startsWith('functions.') ? body.slice('functions.'.length) : body, id: text };
}

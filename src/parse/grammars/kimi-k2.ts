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

/**
 * `functions.NAME:IDX` (or `NAME:IDX`) → name NAME, id verbatim. Names may hold `-` and `.`. A bare counter (`0`,
 * `:0`, `functions.0`, `functions.:0`) names no function: with exactly one declared tool it is that tool (the engine
 * decides, it knows the tools); otherwise not a call (vLLM skips such calls; chatfmt never guesses between tools).
 */
function kimiId(text: string): { name: string; id?: string; anonymous?: boolean } {
  const counter = text.replace(/^functions\./, '').replace(/^:/, '');
  if (counter.length > 0 && isDigits(counter, 0)) return { name: '', id: text, anonymous: true };
  const colon = text.lastIndexOf(':');
  if (colon < 0 || colon === text.length - 1 || !isDigits(text, colon + 1)) return { name: '' };
  const body = text.slice(0, colon);
  return { name: body.startsWith('functions.') ? body.slice('functions.'.length) : body, id: text };
}

function isDigits(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

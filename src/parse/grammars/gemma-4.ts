import { familyInfo } from '../../families/info.js';
import { objectNotation } from '../engine/codecs/object-notation.js';
import type { Grammar } from '../engine/grammar.js';
import { nameUntil } from '../engine/headers.js';

const CALL_CLOSE = '<tool_call|>';

/**
 * `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>` (FORMATS-NEXT §1): Gemma's object notation, typed in
 * band, so no schema is needed. Parallel calls are back to back. Reasoning is `<|channel>thought⏎…<channel|>`; the
 * 31B template pre-fills an empty thought block when thinking is off, and opens nothing when it is on, so by default
 * the completion starts in content (a leading `<|channel>` still opens reasoning). `<|tool_response>` ends a turn that
 * made calls; like `<turn|>` it is a stop string, never content.
 */
export const gemma4Grammar: Grammar = {
  id: 'gemma-4',
  reasoning: { open: ['<|channel>'], close: ['<channel|>'] },
  reasoningLabel: 'thought\n',
  call: { open: ['<|tool_call>'], close: [CALL_CLOSE] },
  header: nameUntil({ delimiters: ['{', CALL_CLOSE], keep: ['{', CALL_CLOSE], map: callName }),
  // The launch and 2026-04 templates print a null argument as `None` (FORMATS-NEXT §1), so history shows it so.
  args: objectNotation({ stringDelimiter: '<|"|>', nullAliases: ['None'] }),
  stopStrings: familyInfo['gemma-4'].stopStrings,
  defaultPrefix: '',
};

/** `call:NAME` → NAME. A stray colon before it (`<|tool_call>:call:`, seen from the model) is tolerated. */
function callName(text: string): { name: string } {
  const body = text.startsWith(':') ? text.slice(1) : text;
  return { name: body.startsWith('call:') ? body.slice('call:'.length).trim() : '' };
}

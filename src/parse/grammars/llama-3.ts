import { familyInfo } from '../../families/info.js';
import { firstMatching } from '../engine/codecs/choice.js';
import { callObject } from '../engine/codecs/hermes-json.js';
import { pythonCall, startsPythonCall } from '../engine/codecs/python-call.js';
import { rawTextCall } from '../engine/codecs/raw-text.js';
import type { Grammar } from '../engine/grammar.js';
import { noHeader } from '../engine/headers.js';

const PYTHON_TAG = '<|python_tag|>';
const stopStrings = familyInfo['llama-3'].stopStrings;
const builtinCall = { method: '.call' };

/**
 * Llama 3.1–3.3 (FORMATS-NEXT §5). A call is a JSON object `{"name": N, "parameters"|"arguments": {…}}` that stands
 * at the start of the output or right after `<|python_tag|>`; more calls may follow after `;`, `; `, `;⏎` or `⏎`
 * (Meta's template writes one call, peers accept these). After the tag a built-in is written
 * `TOOL.call(K="V", …)`, and anything else is code for the interpreter. No call has a closer: it ends with its
 * arguments, and a built-in's `<|eom_id|>` is a stop string.
 *
 * Raw code is named `code_interpreter`, the built-in that Meta's system prompt enables with `Environment: ipython`
 * and that llama.cpp's round trip names (vector `…builtin-code_interpreter:0`); when the declared tools name `python`
 * and not `code_interpreter`, it is `python` (vector `…builtin-python:0` calls a user tool of that name).
 */
export const llama3Grammar: Grammar = {
  id: 'llama-3',
  call: { open: [PYTHON_TAG], close: [] },
  leadingOpen: ['{'],
  callSeparators: [';'],
  header: noHeader,
  args: firstMatching(
    [
      { test: (buf, pos) => buf[pos] === '{', codec: callObject({ requireArguments: true }) },
      { test: startsPythonCall(builtinCall), codec: pythonCall(builtinCall) },
    ],
    rawTextCall({ names: ['code_interpreter', 'python'], key: 'code', end: [...stopStrings, PYTHON_TAG] }),
  ),
  stopStrings,
  defaultPrefix: '',
};

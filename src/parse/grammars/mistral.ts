import { familyInfo } from '../../families/info.js';
import { callObject } from '../engine/codecs/hermes-json.js';
import { jsonArgs } from '../engine/codecs/json-args.js';
import { jsonList } from '../engine/codecs/json-list.js';
import type { CodecFactory, Grammar } from '../engine/grammar.js';
import { byLead, markedName, noHeader } from '../engine/headers.js';

/** v3/v7: `[{"name": N, "arguments": {…}, "id": "123456789"}, …]`, keys in any order; the id is the model's. */
const callList = jsonList(callObject({ idKey: 'id' }));

/** A named header (v11+) is followed by the argument object; a list header leaves the naming to the list. */
const mistralArgs: CodecFactory = (context) => (context.name === undefined ? callList(context) : jsonArgs(context));

/**
 * Every Mistral generation (FORMATS-NEXT §4) after one opener, `[TOOL_CALLS]`:
 * - v3/v7: an optional space, then a JSON list of call objects;
 * - v11+: `NAME[CALL_ID]ID[ARGS]{json}` or `NAME[ARGS]{json}`, one opener per call; the call ends with its JSON.
 *   `NAME{json}` is read too: it is what the text looks like when a detokenizer dropped the `[ARGS]` control token.
 * Reasoning is `[THINK]…[/THINK]`, opened by the model itself (v13); call markup inside it is reasoning, closed or not.
 */
export const mistralGrammar: Grammar = {
  id: 'mistral',
  reasoning: { open: ['[THINK]'], close: ['[/THINK]'] },
  reasoningHoldsCalls: true,
  call: { open: ['[TOOL_CALLS]'], close: [] },
  header: byLead({ '[': noHeader }, markedName({ delimiters: ['[ARGS]', '{'], keep: ['{'], idMarker: '[CALL_ID]' })),
  args: mistralArgs,
  stopStrings: familyInfo.mistral.stopStrings,
  defaultPrefix: '',
};

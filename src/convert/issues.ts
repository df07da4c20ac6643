import { makeIssue, type DatasetIssue, type DatasetIssueCode } from '../readers/issues.js';
import type { Severity } from '../types.js';

/**
 * Import codes (rows an importer could not map, or mapped with a caveat):
 * - IMPORT_BAD_ROW: not an object, or a required field (conversations, query, messages, …) missing or mistyped; a
 *   Hermes result turn with text outside its `<tool_response>` blocks (the tool messages would lose it).
 * - IMPORT_BAD_JSON: a field that should hold JSON (tools, answers, a function_call) is neither JSON nor a Python literal.
 * - IMPORT_UNKNOWN_ROLE: a turn's role or tag is not one the shape defines.
 * - IMPORT_BAD_CALL: a call without a string name, with non-object arguments, or an unclosed `<tool_call>`.
 * - IMPORT_ORPHAN_RESULT: a tool result with no call left to answer.
 * - IMPORT_RESULT_COUNT (warning): calls that got no result before the conversation moved on.
 * - IMPORT_BAD_TOOL: a tool definition that cannot become a JSON-Schema function tool.
 * - IMPORT_TOOL_TYPE (warning): a parameter pseudo-type with no JSON-Schema equivalent; left untyped.
 * - IMPORT_ROLE_ORDER (warning): breaks LLaMA-Factory's positional rule (LLaMA-Factory would skip the row).
 * - IMPORT_LOSS_WEIGHT (warning): a LLaMA-Factory v1 loss_weight with no OpenAI `weight` equivalent.
 * Training-record codes:
 * - CONVERT_RENDER_FAILED: the template rejected or failed on the conversation.
 * - CONVERT_NO_ASSISTANT (warning): nothing to train on (no assistant turn selected).
 * - CONVERT_SPANS_DISAGREE (warning): `{% generation %}` spans and render-diff spans differ for a turn.
 * - CONVERT_SPAN_NOT_FOUND: an assistant turn's text could not be located.
 * - CONVERT_NOT_PREFIX_PRESERVING (warning): rendering later turns rewrites earlier ones (e.g. old reasoning dropped).
 * - CONVERT_TOKENIZE_FAILED: decode(encode(text)) !== text, or token offsets cannot be computed.
 * - CONVERT_TOO_LONG: locating the turns would render more than the budget (--max-prefix-render-chars).
 * Shared with validate: TEMPLATE_DROPS_TOOL_CALLS (a tool-call turn rendered without its calls) and
 * TEMPLATE_READS_CLOCK (warning: the text holds today's date; --now fixes it).
 */
export type ConvertIssueAnyCode = Extract<
  DatasetIssueCode,
  `IMPORT_${string}` | `CONVERT_${string}` | 'ROW_INVALID_JSON' | 'ROW_TOO_DEEP' | 'TEMPLATE_IDS_REWRITTEN' | 'TEMPLATE_DROPS_TOOL_CALLS' | 'TEMPLATE_READS_CLOCK' | 'TOOL_UNDECLARED' | 'TOKENS_TIMEOUT' | 'INTERNAL_ERROR'
>;

/** Validate's issue shape, so reports from both commands read and merge alike. */
export type ConvertIssue = DatasetIssue;

export function issue(line: number, code: ConvertIssueAnyCode, path: string, message: string, severity?: Severity): ConvertIssue {
  return makeIssue(line, code, path, message, severity);
}

/** A row whose conversion threw (a stack overflow, a chatfmt bug): one issue on that row instead of the end of the run. */
export function rowFailure(line: number, error: unknown): ConvertIssue {
  const message = error instanceof Error ? error.message : String(error);
  return makeIssue(line, 'INTERNAL_ERROR', '', `converting this row failed: ${message.split('\n')[0]}`);
}

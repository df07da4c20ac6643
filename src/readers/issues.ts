import type { Severity } from '../types.js';
import { oneLine } from '../util/one-line.js';

/**
 * Every issue the dataset validator reports. Codes are stable: scripts filter on them.
 * Grouped by prefix: ROW_* (the line itself), MSG_* (structure), TOOL_* (tool protocol and
 * declarations), ARGS_* (call arguments), TEMPLATE_* / ROUNDTRIP_* (with a template),
 * TOKENS_* (with a tokenizer); IMPORT_* and CONVERT_* belong to `chatfmt convert`, which shares this issue shape.
 */
export const datasetIssueSeverity = {
  // The line or file itself.
  DATASET_EMPTY: 'error',
  // The input ends early (gzip data cut short or corrupt): the rows before that point are read and reported.
  DATASET_TRUNCATED: 'error',
  ROW_INVALID_JSON: 'error',
  ROW_INVALID_UTF8: 'error',
  ROW_TOO_LARGE: 'error',
  // JSON nested deeper than the row depth budget (ROW_MAX_DEPTH): checking or rendering it would exhaust the stack.
  ROW_TOO_DEEP: 'error',
  ROW_NOT_OBJECT: 'error',
  // A row of another dataset format (xLAM, Alpaca, …): one hint instead of every structure error it would cause.
  ROW_WRONG_SHAPE: 'error',
  // Structure, from chatfmt's JSON schema (ajv).
  MSG_MISSING_FIELD: 'error',
  MSG_WRONG_TYPE: 'error',
  MSG_BAD_VALUE: 'error',
  MSG_BAD_ROLE: 'error',
  MSG_EMPTY_MESSAGES: 'error',
  MSG_ASSISTANT_EMPTY: 'error',
  MSG_NO_ASSISTANT: 'error',
  // ShareGPT (LLaMA-Factory) specifics.
  SHAREGPT_ROLE_ORDER: 'error',
  SHAREGPT_TOOLS_NOT_JSON: 'error',
  SHAREGPT_CALL_NOT_JSON: 'error',
  // Tool protocol.
  TOOL_CALL_ID_MISSING: 'warning',
  TOOL_RESULT_ID_MISSING: 'warning',
  TOOL_CALL_ID_DUPLICATE: 'error',
  TOOL_RESULT_UNMATCHED: 'error',
  TOOL_RESULT_ORPHAN: 'error',
  TOOL_RESULT_OUT_OF_ORDER: 'error',
  TOOL_CALL_UNANSWERED: 'error',
  TOOL_UNDECLARED: 'error',
  TOOLS_NOT_DECLARED: 'warning',
  // Tool declarations.
  TOOL_SCHEMA_INVALID: 'error',
  TOOL_PSEUDO_TYPE: 'error',
  TOOL_DUPLICATE_NAME: 'error',
  TOOL_REQUIRED_UNKNOWN: 'warning',
  // A schema (or part of one) over a budget, or a pattern the linear-time engine cannot run: arguments are not checked against it.
  TOOL_SCHEMA_UNCHECKED: 'warning',
  // Call arguments.
  ARGS_INVALID_JSON: 'error',
  ARGS_NOT_OBJECT: 'error',
  ARGS_SCHEMA_MISMATCH: 'error',
  ARGS_UNKNOWN_PARAMETER: 'warning',
  ARGS_MIXED_FORMS: 'warning',
  // With --family / --template.
  TEMPLATE_ERROR: 'error',
  TEMPLATE_ARGS_FORM: 'warning',
  TEMPLATE_NULL_CONTENT: 'warning',
  // Rendering needed a change to the row (Kimi call ids); convert and validate report the same rewrites.
  TEMPLATE_IDS_REWRITTEN: 'warning',
  ROUNDTRIP_MISMATCH: 'error',
  // The template renders an assistant tool-call turn without its calls (neither a call's name nor its arguments).
  TEMPLATE_DROPS_TOOL_CALLS: 'error',
  // A template with no family parser: tool-call turns are checked for their calls' presence only (reported once).
  ROUNDTRIP_SKIPPED: 'warning',
  // The template writes the current date (strftime_now) and no --now fixes it: the text changes day to day (once).
  TEMPLATE_READS_CLOCK: 'warning',
  // With --tokenizer and --max-length.
  TOKENS_OVER_LIMIT: 'warning',
  TOKENS_ASSISTANT_TRUNCATED: 'error',
  // Tokenizing the row went over its time budget (a tokenizer whose pre-tokenizer regex backtracks on this text).
  TOKENS_TIMEOUT: 'error',
  // A check itself failed unexpectedly on this row (a chatfmt bug, reported rather than thrown).
  INTERNAL_ERROR: 'error',
  // The worker thread validating this row's batch died (out of memory, crash); the run goes on with a new worker.
  WORKER_DIED: 'error',
  // chatfmt convert (helper C, src/convert/issues.ts explains each): importers, then training records.
  IMPORT_BAD_ROW: 'error',
  IMPORT_BAD_JSON: 'error',
  IMPORT_UNKNOWN_ROLE: 'error',
  IMPORT_BAD_CALL: 'error',
  IMPORT_ORPHAN_RESULT: 'error',
  IMPORT_RESULT_COUNT: 'warning',
  IMPORT_BAD_TOOL: 'error',
  IMPORT_TOOL_TYPE: 'warning',
  IMPORT_ROLE_ORDER: 'warning',
  // A LLaMA-Factory v1 loss_weight OpenAI's weight (0 or 1, assistant turns only) cannot carry.
  IMPORT_LOSS_WEIGHT: 'warning',
  CONVERT_RENDER_FAILED: 'error',
  CONVERT_NO_ASSISTANT: 'warning',
  CONVERT_SPANS_DISAGREE: 'warning',
  CONVERT_SPAN_NOT_FOUND: 'error',
  CONVERT_NOT_PREFIX_PRESERVING: 'warning',
  CONVERT_TOKENIZE_FAILED: 'error',
  CONVERT_TOO_LONG: 'error',
} as const satisfies Record<string, Severity>;

export type DatasetIssueCode = keyof typeof datasetIssueSeverity;

export const datasetIssueCodes = Object.keys(datasetIssueSeverity) as DatasetIssueCode[];

export interface DatasetIssue {
  /**
   * 1-based line of the row in the input (for JSON arrays: the line where the element starts); 0 = the whole file,
   * or an array element whose line says nothing (it shares it with other elements).
   */
  line: number;
  /** 1-based index of the row (array element or non-blank line); 0 or absent = the whole file. */
  row?: number;
  code: DatasetIssueCode;
  severity: Severity;
  /** JSON path into the row, e.g. `messages[3].tool_calls[0].function.arguments`; '' for the whole row. */
  path: string;
  message: string;
}

export function makeIssue(line: number, code: DatasetIssueCode, path: string, message: string, severity?: Severity): DatasetIssue {
  // Messages quote rows (names, ids, JSON.parse's excerpt of a pretty-printed array): each stays one line wherever it
  // is printed or stored.
  return { line, code, severity: severity ?? datasetIssueSeverity[code], path: oneLine(path), message: oneLine(message) };
}

export function isDatasetIssueCode(value: string): value is DatasetIssueCode {
  return Object.hasOwn(datasetIssueSeverity, value);
}

/** `✖ message → at path (line N)`, the zod-style line the CLI prints; `row N` where the line says nothing. */
export function formatIssue(issue: DatasetIssue): string {
  const mark = issue.severity === 'error' ? '✖' : '⚠';
  const place = issue.line > 0 ? `line ${issue.line}` : issue.row ? `row ${issue.row}` : '';
  if (place === '') return issue.path === '' ? `${mark} ${issue.message}` : `${mark} ${issue.message} → at ${issue.path}`;
  return `${mark} ${issue.message} → ${issue.path === '' ? place : `at ${issue.path} (${place})`}`;
}

/** Codes about the run rather than one row: seen on rows (each worker sees only its own), reported at the first. */
const oncePerRunCodes: ReadonlySet<DatasetIssueCode> = new Set(['ROUNDTRIP_SKIPPED', 'TEMPLATE_READS_CLOCK']);

/** A filter for issues in input order that keeps only the first issue of each once-per-run code. */
export function oncePerRun(): (issues: DatasetIssue[]) => DatasetIssue[] {
  const seen = new Set<DatasetIssueCode>();
  return (issues) =>
    issues.filter((issue) => {
      if (!oncePerRunCodes.has(issue.code)) return true;
      if (seen.has(issue.code)) return false;
      seen.add(issue.code);
      return true;
    });
}

/** The row an issue belongs to, for counting rows: its index, else its line (issues made before rows were numbered). */
export function issueRow(issue: DatasetIssue): number {
  return issue.row ?? issue.line;
}

/** One `--report` line, the same from validate and convert: `{line, row, code, severity, path, message}`. */
export function issueReportLine(issue: DatasetIssue): string {
  const { line, row, code, severity, path, message } = issue;
  return `${JSON.stringify({ line, row: row ?? 0, code, severity, path, message })}\n`;
}

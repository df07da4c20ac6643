import type { Diagnostic } from './types.js';

/** Every error chatfmt throws carries one of these codes; callers branch on `code`, not on text. */
export type ErrorCode =
  // The template could not be compiled (lexer/parser errors, unsupported syntax).
  | 'TEMPLATE_SYNTAX'
  // The template called raise_exception(msg): it rejected the input.
  | 'TEMPLATE_RAISED'
  // A Python-level error during rendering (TypeError, UndefinedError, ...): jinja2 raises here too.
  | 'TEMPLATE_RUNTIME'
  // Rendering exceeded a safety limit (values built, output size, loop iterations, recursion, generation spans).
  | 'TEMPLATE_LIMIT'
  // Where a template should come from is wrong: missing file, no chat_template, unknown name.
  | 'TEMPLATE_SOURCE'
  | 'UNKNOWN_FAMILY'
  // A template whose output syntax chatfmt could not find: no response template, no family, no derivable grammar.
  | 'TEMPLATE_NO_PARSER'
  // Input that is not what the API expects (bad JSON, wrong shape, too large).
  | 'INPUT_INVALID'
  | 'INPUT_TOO_LARGE'
  // Tokenizing one text went over its time budget (a tokenizer.json whose regexes backtrack on that text).
  | 'TOKENIZER_TIMEOUT'
  // parse(..., {strict: true}) found a diagnostic.
  | 'PARSE_STRICT'
  // Response templates (transformers' response_template), each error also naming the Python exception it mirrors:
  // the template failed validation (load time, ValueError);
  | 'RESPONSE_TEMPLATE_INVALID'
  // a call argument transformers rejects (prefix not given, a tools entry that is not a tool dict);
  | 'RESPONSE_TEMPLATE_ARGUMENT'
  // a region's body failed its content parser, transform, join or a required field is missing (feed/finalize);
  | 'RESPONSE_TEMPLATE_VALUE'
  // feed() or finalize() after finalize();
  | 'RESPONSE_TEMPLATE_STATE'
  // a safety limit: regex step budget, JSON nesting depth, a template that stops making progress.
  | 'RESPONSE_TEMPLATE_LIMIT'
  // a legacy response_schema whose x-regex structure chatfmt cannot convert to a response template.
  | 'RESPONSE_SCHEMA_UNSUPPORTED';

export class ChatfmtError extends Error {
  readonly code: ErrorCode;
  /** For template errors: which template (file path, family id, or "<string>"). */
  readonly template?: string;
  readonly diagnostics?: Diagnostic[];

  constructor(code: ErrorCode, message: string, extra: { template?: string; diagnostics?: Diagnostic[]; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ChatfmtError';
    this.code = code;
    if (extra.template !== undefined) this.template = extra.template;
    if (extra.diagnostics !== undefined) this.diagnostics = extra.diagnostics;
  }
}

export function isChatfmtError(error: unknown): error is ChatfmtError {
  return error instanceof ChatfmtError;
}

/**
 * `context: message`, unless the message already starts with that context: errors pass through layers that each
 * name where they are (a template that names itself in raise_exception, a line number), and saying it twice is noise.
 */
export function inContext(context: string, message: string): string {
  return message.startsWith(`${context}:`) ? message : `${context}: ${message}`;
}

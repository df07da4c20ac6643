import { ChatfmtError, inContext, type ErrorCode } from '../errors.js';

/** A Python-level exception raised while rendering (TypeError, UndefinedError, ...). */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

/** raise_exception(msg): the template rejected its input. */
export class RaisedError extends Error {}

/** A sandbox limit (output size, range size, recursion) was exceeded. */
export class LimitError extends Error {
  constructor(
    message: string,
    readonly pyType = 'SecurityError',
  ) {
    super(message);
  }
}

/** A lexer/parser/assertion error found while compiling. */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly pyType = 'TemplateSyntaxError',
  ) {
    super(message);
  }
}

export function typeError(message: string): PyError {
  return new PyError('TypeError', message);
}

/** The ChatfmtError thrown by compileTemplate/render, with the Python-side details kept as data. */
export class JinjaError extends ChatfmtError {
  /** jinja2's exception class: TemplateError (raise_exception), TypeError, UndefinedError, TemplateSyntaxError, ... */
  readonly pythonType: string;
  /**
   * The exception's own text, as Python's `str(exception)` gives it for jinja2 (for syntax errors without the line,
   * which `message` adds). Compare `pythonType` and this to what jinja2 raised.
   */
  readonly pythonMessage: string;
  /** For raise_exception: the raw message the template passed. */
  readonly templateMessage?: string;

  constructor(
    code: ErrorCode,
    message: string,
    template: string,
    python: { type: string; message: string },
    templateMessage?: string,
    cause?: unknown,
  ) {
    super(code, message, { template, cause });
    this.pythonType = python.type;
    this.pythonMessage = python.message;
    if (templateMessage !== undefined) this.templateMessage = templateMessage;
  }
}

/** jinja2's sandbox MAX_RANGE: a larger range() is an OverflowError there too. */
export const MAX_RANGE = 100_000;

/** Converts anything thrown during a render into a JinjaError. */
export function toJinjaError(error: unknown, name: string): JinjaError {
  if (error instanceof JinjaError) return error;
  if (error instanceof RaisedError) {
    const python = { type: 'TemplateError', message: error.message };
    return new JinjaError('TEMPLATE_RAISED', inContext(name, error.message), name, python, error.message, error);
  }
  if (error instanceof PyError) {
    const python = { type: error.pyType, message: error.message };
    return new JinjaError('TEMPLATE_RUNTIME', `${name}: ${error.pyType}: ${error.message}`, name, python, undefined, error);
  }
  if (error instanceof LimitError) {
    const python = { type: error.pyType, message: error.message };
    return new JinjaError('TEMPLATE_LIMIT', `${name}: ${error.pyType}: ${error.message}`, name, python, undefined, error);
  }
  if (error instanceof TemplateSyntaxError) {
    const python = { type: error.pyType, message: error.message };
    return new JinjaError('TEMPLATE_SYNTAX', `${name}: syntax error: ${error.message} (line ${error.line})`, name, python, undefined, error);
  }
  if (error instanceof RangeError) {
    // Only a stack overflow is Python's RecursionError; V8's size errors ("Invalid string length", "Invalid array
    // length", "Maximum BigInt size exceeded") are a value too large for the engine: a limit, not recursion.
    const recursion = /call stack/i.test(error.message);
    const pyType = recursion ? 'RecursionError' : 'MemoryError';
    const python = { type: pyType, message: error.message };
    return new JinjaError('TEMPLATE_LIMIT', `${name}: ${pyType}: ${error.message}`, name, python, undefined, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new JinjaError('TEMPLATE_RUNTIME', `${name}: InternalError: ${message}`, name, { type: 'InternalError', message }, undefined, error);
}

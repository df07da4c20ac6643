import { ChatfmtError, type ErrorCode } from '../errors.js';

/** The Python exception class transformers raises in the same situation. */
export type PythonErrorType = 'ValueError' | 'KeyError' | 'TypeError' | 'RuntimeError';
export type ResponseTemplatePhase = 'load' | 'feed' | 'finalize';

type ResponseTemplateCode = Extract<ErrorCode, `RESPONSE_TEMPLATE_${string}`>;

export class ResponseTemplateError extends ChatfmtError {
  readonly pythonType: PythonErrorType;
  readonly phase: ResponseTemplatePhase;

  constructor(code: ResponseTemplateCode, pythonType: PythonErrorType, phase: ResponseTemplatePhase, message: string) {
    super(code, message);
    this.name = 'ResponseTemplateError';
    this.pythonType = pythonType;
    this.phase = phase;
  }
}

/**
 * A failure inside content parsing, transform or casting, before the executor knows which call (feed/finalize) it
 * belongs to; the executor turns it into a ResponseTemplateError with the phase.
 */
export class RegionError extends Error {
  constructor(readonly pythonType: PythonErrorType, message: string, readonly limit = false) {
    super(message);
  }
}

export { compileResponseTemplate, type CompiledResponseTemplate, type ResponseTemplateJson } from './compile.js';
export { ResponseTemplateError, type PythonErrorType, type ResponseTemplatePhase } from './errors.js';
export { createResponseParser, parseResponse, type ResponseEvent, type ResponseParser, type ResponseParserOptions } from './executor.js';
export { coerceValue as coerceToolArgument, schemaTypes as toolSchemaTypes, castWithTools as castResponseToolCalls } from './coerce.js';
export type { RegexStats as ResponseTemplateRegexStats } from './regex/index.js';

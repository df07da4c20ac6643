// transformers' response templates (`response_template` in tokenizer_config.json): load-time validation, the
// streaming executor and `parse_response`, with Python semantics throughout (the `regex` module's partial matching,
// str.strip, int()/float(), json.loads). Spec: RESPONSE_TEMPLATES.md in the shared reference data.
export { compileResponseTemplate, type CompiledResponseTemplate, type ResponseTemplateJson } from './compile.js';
export { ResponseTemplateError, type PythonErrorType, type ResponseTemplatePhase } from './errors.js';
export { createResponseParser, parseResponse, type ResponseEvent, type ResponseParser, type ResponseParserOptions } from './executor.js';
export { coerceValue as coerceToolArgument, schemaTypes as toolSchemaTypes, castWithTools as castResponseToolCalls } from './coerce.js';
export type { RegexStats as ResponseTemplateRegexStats } from './regex/index.js';
/** Visited-state memo bits one regex search may hold (8 MiB); beyond it a search fails with RESPONSE_TEMPLATE_LIMIT. */
export { MAX_MEMO_BITS as RESPONSE_TEMPLATE_MEMO_BITS } from './regex/index.js';

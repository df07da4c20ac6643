// Public surface of src/parse.
export { parse } from './parse.js';
export { createStreamParser, MAX_INPUT_CHARS, type ParseOptions, type StreamParser } from './stream.js';
export type { DeltaSink } from './sink.js';
export { accumulateDeltas } from './accumulate.js';
export type { ResponseStreamParser, ResponseTemplateParseOptions } from './response.js';
export { parserFamilies, parserFamily } from '../registry/parser-table.js';
export type { ParserFamily, ParserMarkers } from '../registry/parsers.js';
export { randomCallId, type CallIdInfo, type IdGenerator } from './ids.js';
export { indexTools, type CoreFactory, type CoreOptions, type ParseEvent, type ParserCore, type ToolIndex } from './core.js';
export { createGrammarCore } from './engine/machine.js';
export { withTags, type Grammar } from './engine/grammar.js';

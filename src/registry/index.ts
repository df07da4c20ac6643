// Public surface of src/registry: the one family table, its parser column, and the parser descriptor it shares with
// derived grammars.
export { families, getFamily, type Family } from './families.js';
export { parserFamilies, parserFamily } from './parser-table.js';
export { grammarParser, type ParserFamily, type ParserMarkers } from './parsers.js';

// Public surface of src/registry: the one family table, and the parser descriptor it shares with derived grammars.
export { families, getFamily, parserFamilies, parserFamily, type Family } from './families.js';
export { grammarParser, type ParserFamily, type ParserMarkers } from './parsers.js';

export { detectFamily, detectVerdict, type DetectVerdict, type FamilyMatch, type ProbeOptions } from './detect.js';
export { deriveParser, type DerivedParser } from './derive-grammar.js';
export { parserForTemplate, type TemplateParser } from './template-parser.js';
export { matchResponseTemplate, type ResponseTemplateMatch } from './response-template.js';

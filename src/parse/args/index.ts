export { coerceValue, jsonStringFragment, valueKind, type CoercedValue, type ValueKind } from './coerce.js';
export { parsePythonLiteral, pythonLiteralToJson, type PythonLiteralResult } from './python-literal.js';

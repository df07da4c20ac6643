export { coerceValue, declaredKind, jsonStringFragment, valueKind, type CoercedValue, type DeclaredType, type ValueKind } from './coerce.js';
export { parsePythonLiteral, pythonLiteralToJson, type PythonLiteralResult } from './python-literal.js';

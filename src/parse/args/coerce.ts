import type { JsonSchema } from '../../types.js';
import { isJsonInteger, isJsonNumber, minifyJson } from './json-text.js';
import { pythonLiteralToJson } from './python-literal.js';
import { admittedTypes, type AdmittedTypes, type TypedKind } from './schema.js';
import { clipForMessage } from '../../util/utf16.js';

// Typing of raw argument values for the XML-style families (Qwen3-Coder, GLM, Seed-OSS), whose wire
// carries no types: the declared schema is the only source (FORMATS §0.5). One routine serves the
// streaming and the batch path, so they cannot disagree (lesson vllm PR#23324).

export type ValueKind = 'string' | 'nullable-string' | 'typed' | 'unknown';

export interface CoercedValue {
  /** The value as compact JSON text. */
  json: string;
  diagnostic?: { code: 'PARSE_ARG_TYPE'; message: string };
}

/**
 * How a raw value for this parameter schema is read: `'string'` when any string is allowed (the raw
 * text is the value, so it can be streamed as it arrives), `'nullable-string'` when null is allowed too
 * (the literal `null`/`None` is JSON null, so the value is decided at its end), `'typed'` when only other
 * types are, `'unknown'` when the schema says nothing about types (or is missing).
 */
export function valueKind(schema: JsonSchema | undefined): ValueKind {
  return kindOf(admittedTypes(schema));
}

function kindOf(admitted: AdmittedTypes): ValueKind {
  if (admitted.anyString) return admitted.typed.has('null') ? 'nullable-string' : 'string';
  if (admitted.typed.size > 0) return 'typed';
  return admitted.stringValues.size > 0 ? 'string' : 'unknown';
}

/**
 * What the wire says about a value's type, where it says anything (DSML's `string="true|false"`): `'string'` = the
 * raw text is the value, `'json'` = the text is JSON.
 */
export type DeclaredType = 'string' | 'json';

/**
 * How a value is read when the wire declares its type (FORMATS-NEXT §2): a declared string is the raw text unless
 * the schema excludes strings; declared JSON without a schema is JSON when it parses. Everywhere else the schema
 * decides, as for undeclared values (vLLM: the schema wins where model and schema disagree).
 */
export function declaredKind(schema: JsonSchema | undefined, declared: DeclaredType | undefined): ValueKind {
  return declaredKindOf(admittedTypes(schema), declared);
}

/** declaredKind from the schema's admitted types, for a caller that works those out once per parameter. */
export function declaredKindOf(admitted: AdmittedTypes, declared: DeclaredType | undefined): ValueKind {
  const kind = kindOf(admitted);
  return declaredString(kind, declared) ? 'string' : kind;
}

function declaredString(kind: ValueKind, declared: DeclaredType | undefined): boolean {
  return declared === 'string' && (kind === 'nullable-string' || kind === 'unknown');
}

/**
 * What a value with no schema (and no type on the wire) becomes: `'json-literals'` reads a plain JSON literal (`5`,
 * `true`, `[1]`) as JSON, as vLLM's GLM and llama.cpp's Seed-OSS parsers do; `'strings'` keeps every such value a
 * string, as the schema is the only type source (MiniMax-M2: FORMATS-NEXT §3, vLLM keeps `5` as `"5"`).
 */
export type UntypedValues = 'json-literals' | 'strings';

/**
 * Turns the raw text of one argument value into JSON text, following the schema and what the wire declares
 * (see declaredKind). Never throws.
 */
export function coerceValue(raw: string, schema: JsonSchema | undefined, declared?: DeclaredType, untyped: UntypedValues = 'json-literals'): CoercedValue {
  return coerceAdmitted(raw, admittedTypes(schema), declared, untyped);
}

/** coerceValue from the schema's admitted types (admittedTypes), for a caller that works those out once. */
export function coerceAdmitted(raw: string, admitted: AdmittedTypes, declared?: DeclaredType, untyped: UntypedValues = 'json-literals'): CoercedValue {
  const kind = kindOf(admitted);
  if (declaredString(kind, declared)) return { json: JSON.stringify(raw) };
  if (declared === 'json' && kind === 'unknown') return { json: jsonText(raw) ?? JSON.stringify(raw) };
  switch (kind) {
    case 'string':
      return { json: JSON.stringify(raw) };
    case 'nullable-string': {
      const text = raw.trim();
      return { json: text === 'null' || text === 'None' ? 'null' : JSON.stringify(raw) };
    }
    case 'unknown':
      return { json: (untyped === 'json-literals' ? guessJsonLiteral(raw) : undefined) ?? JSON.stringify(raw) };
    case 'typed':
      return coerceTyped(raw, admitted);
  }
}

/** What guessJsonLiteral takes may begin with, past white space: true, false, null, a number, an object, an array. */
const JSON_LITERAL_START = 'tfn-0123456789{[';
/** White space as String.prototype.trim takes it, which guessJsonLiteral applies first. */
const NOT_WHITESPACE = /\S/;

/**
 * Whether a value no schema types (and the wire does not declare) is a string whatever follows `text`, its start:
 * true once that start shows it cannot be a JSON literal guessJsonLiteral would take (or when untyped values are
 * all strings), false once it may be one, undefined while it is only white space. A streamed value decided true can
 * be written as string fragments, and comes out as coerceAdmitted would write it whole.
 */
export function untypedIsString(text: string, untyped: UntypedValues = 'json-literals'): boolean | undefined {
  if (untyped === 'strings') return true;
  const first = text.search(NOT_WHITESPACE);
  return first < 0 ? undefined : !JSON_LITERAL_START.includes(text[first]!);
}

/** JSON string escaping without the quotes: fragments of a streamed string value concatenate to its JSON. */
export function jsonStringFragment(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * Without a schema, a value is JSON only when it is plainly a JSON literal; everything else (Python
 * `True`, `123_456`, `01234`, bare words) stays a string. Peers differ here (peer-vectors README #13):
 * vLLM guesses more, llama.cpp JSON-parses; this is the subset where a guess cannot mangle data.
 */
function guessJsonLiteral(raw: string): string | undefined {
  const text = raw.trim();
  if (text === 'true' || text === 'false' || text === 'null') return text;
  if (isJsonNumber(text)) return text;
  const first = text.charCodeAt(0);
  if (first === 123 /* { */ || first === 91 /* [ */) return jsonContainer(text, first === 123 ? 'object' : 'array');
  return undefined;
}

/** The text as compact JSON when it is one JSON value, else undefined. */
function jsonText(raw: string): string | undefined {
  const text = raw.trim();
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return minifyJson(text);
}

function coerceTyped(raw: string, admitted: AdmittedTypes): CoercedValue {
  const text = raw.trim();
  if (admitted.stringValues.has(raw)) return { json: JSON.stringify(raw) };
  if (admitted.stringValues.has(text)) return { json: JSON.stringify(text) };
  for (const kind of tryOrder) {
    if (!admitted.typed.has(kind)) continue;
    const json = readAs(kind, text);
    if (json !== undefined) return { json };
  }
  const expected = [...admitted.typed, ...[...admitted.stringValues].map((value) => JSON.stringify(value))].join(' | ');
  return {
    json: JSON.stringify(raw),
    diagnostic: { code: 'PARSE_ARG_TYPE', message: `expected ${expected}, got ${preview(raw)}; kept as a string` },
  };
}

// Syntaxes are disjoint except integer ⊂ number, which emit the same text; containers go last
// because they are the expensive checks.
const tryOrder: readonly TypedKind[] = ['null', 'boolean', 'integer', 'number', 'object', 'array'];

function readAs(kind: TypedKind, text: string): string | undefined {
  switch (kind) {
    case 'null': {
      const lower = text.toLowerCase();
      return lower === 'null' || lower === 'none' ? 'null' : undefined;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      return lower === 'true' || lower === 'false' ? lower : undefined;
    }
    case 'integer': {
      const digits = withoutLeadingZeros(text);
      return isJsonInteger(digits) ? digits : undefined;
    }
    case 'number': {
      const digits = withoutLeadingZeros(text);
      return isJsonNumber(digits) ? digits : undefined;
    }
    case 'object':
    case 'array':
      return jsonContainer(text, kind) ?? pythonContainer(text, kind);
  }
}

/**
 * `007` → `7`, `-007.5` → `-7.5`: a value the schema types as a number is read as Python's `int()`/`float()` read it
 * (vLLM, SGLang and transformers do), while JSON forbids leading zeros. Only where the schema asks for a number: an
 * untyped `007` stays a string (an id or a zip code).
 */
function withoutLeadingZeros(text: string): string {
  const sign = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  let i = sign;
  while (text.charCodeAt(i) === 48 /* 0 */ && isDigit(text.charCodeAt(i + 1))) i++;
  return i === sign ? text : text.slice(0, sign) + text.slice(i);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function jsonContainer(text: string, kind: 'object' | 'array'): string | undefined {
  const open = kind === 'object' ? 123 : 91;
  if (text.charCodeAt(0) !== open) return undefined;
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return minifyJson(text);
}

function pythonContainer(text: string, kind: 'object' | 'array'): string | undefined {
  const literal = pythonLiteralToJson(text);
  return literal && literal.kind === kind ? literal.json : undefined;
}

function preview(raw: string): string {
  return clipForMessage(raw, 40, JSON.stringify);
}

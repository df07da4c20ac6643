import type { FunctionTool, JsonSchema } from '../types.js';
import { issue, type ConvertIssue } from './issues.js';
import { isPlainObject, lookupTable } from '../util/guards.js';
import { decodeJsonField } from './loose-json.js';

const jsonSchemaTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const pseudoTypes = lookupTable<JsonSchema>({
  str: { type: 'string' },
  string: { type: 'string' },
  text: { type: 'string' },
  int: { type: 'integer' },
  integer: { type: 'integer' },
  float: { type: 'number' },
  double: { type: 'number' },
  number: { type: 'number' },
  bool: { type: 'boolean' },
  boolean: { type: 'boolean' },
  dict: { type: 'object' },
  object: { type: 'object' },
  map: { type: 'object' },
  mapping: { type: 'object' },
  list: { type: 'array' },
  array: { type: 'array' },
  tuple: { type: 'array' },
  set: { type: 'array' },
  sequence: { type: 'array' },
  none: { type: 'null' },
  null: { type: 'null' },
  any: {},
});

export interface MappedType {
  schema: JsonSchema;
  optional: boolean;
}

/**
 * Maps a Python-ish type string (`str, optional`, `List[int]`, `Dict[str, Any]`, `Optional[float]`, `int or str`)
 * to JSON Schema; undefined when it is not recognised.
 */
export function mapPseudoType(text: string): MappedType | undefined {
  const [head, ...flags] = splitTopLevel(text, ',');
  let optional = flags.some((flag) => flag.trim().toLowerCase() === 'optional');
  const mapped = mapTypeExpression((head ?? '').trim());
  if (!mapped) return undefined;
  optional ||= mapped.optional;
  return { schema: mapped.schema, optional };
}

function mapTypeExpression(text: string): MappedType | undefined {
  const alternatives = splitTopLevel(text, '|').flatMap((part) => splitWord(part, ' or '));
  if (alternatives.length > 1) return union(alternatives.map((a) => a.trim()));
  const open = text.indexOf('[');
  const name = (open < 0 ? text : text.slice(0, open)).trim().toLowerCase().replace(/^typing\./, '');
  const inner = open >= 0 && text.endsWith(']') ? splitTopLevel(text.slice(open + 1, -1), ',').map((s) => s.trim()) : [];
  if (open >= 0 && !text.endsWith(']')) return undefined;
  if (name === 'optional') {
    const base = inner.length === 1 ? mapTypeExpression(inner[0]!) : undefined;
    return base && { schema: base.schema, optional: true };
  }
  if (name === 'union') {
    const mapped = union(inner);
    if (!mapped) return undefined;
    const withoutNull = inner.filter((t) => t.toLowerCase() !== 'none');
    const optional = withoutNull.length < inner.length;
    return optional ? { schema: union(withoutNull)!.schema, optional } : mapped;
  }
  if (name === 'literal') {
    const values = inner.map(literalValue);
    return values.every((v) => v !== undefined) ? { schema: { enum: values }, optional: false } : undefined;
  }
  const base = pseudoTypes[name];
  if (!base) return undefined;
  if (base.type === 'array' && inner.length === 1) {
    const items = mapTypeExpression(inner[0]!);
    if (!items) return undefined;
    return { schema: Object.keys(items.schema).length ? { type: 'array', items: items.schema } : { type: 'array' }, optional: false };
  }
  return { schema: { ...base }, optional: false };
}

function union(parts: string[]): MappedType | undefined {
  const mapped = parts.map(mapTypeExpression);
  if (mapped.some((m) => m === undefined)) return undefined;
  const schemas = mapped.map((m) => m!.schema);
  if (schemas.length === 1) return { schema: schemas[0]!, optional: false };
  if (schemas.some((s) => Object.keys(s).length === 0)) return { schema: {}, optional: false };
  const simple = schemas.every((s) => Object.keys(s).length === 1 && typeof s.type === 'string');
  const schema = simple ? { type: [...new Set(schemas.map((s) => s.type as string))] } : { anyOf: schemas };
  return { schema, optional: false };
}

function literalValue(text: string): unknown {
  const quote = text[0];
  if ((quote === "'" || quote === '"') && text.endsWith(quote) && text.length >= 2) return text.slice(1, -1);
  const number = Number(text);
  return text !== '' && Number.isFinite(number) ? number : undefined;
}

/** Splits on `separator` outside brackets. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') depth--;
    else if (depth === 0 && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function splitWord(text: string, word: string): string[] {
  return text.includes('[') ? [text] : text.split(word);
}

/** Reads a `tools` field (list, or JSON string of one) into OpenAI function tools with JSON-Schema parameters. */
export function importTools(value: unknown, line: number, path: string): { tools: FunctionTool[]; issues: ConvertIssue[] } {
  const issues: ConvertIssue[] = [];
  if (value === undefined || value === null || value === '') return { tools: [], issues };
  const decoded = decodeJsonField(value);
  if (!decoded.ok) return { tools: [], issues: [issue(line, 'IMPORT_BAD_JSON', path, `tools is not JSON: ${decoded.error}`)] };
  const list = Array.isArray(decoded.value) ? decoded.value : isPlainObject(decoded.value) ? [decoded.value] : undefined;
  if (!list) return { tools: [], issues: [issue(line, 'IMPORT_BAD_TOOL', path, 'tools must be a list of tool definitions')] };
  const tools: FunctionTool[] = [];
  list.forEach((entry, index) => {
    const tool = importTool(entry, line, `${path}[${index}]`, issues);
    if (tool) tools.push(tool);
  });
  return { tools, issues };
}

function importTool(entry: unknown, line: number, path: string, issues: ConvertIssue[]): FunctionTool | undefined {
  const fn = isPlainObject(entry) && isPlainObject(entry.function) ? entry.function : entry;
  const fnPath = fn === entry ? path : `${path}.function`;
  if (!isPlainObject(fn) || typeof fn.name !== 'string' || fn.name === '') {
    issues.push(issue(line, 'IMPORT_BAD_TOOL', path, 'a tool needs a function name'));
    return undefined;
  }
  const out: FunctionTool['function'] = { name: fn.name };
  if (typeof fn.description === 'string') out.description = fn.description;
  if (fn.parameters !== undefined && fn.parameters !== null) {
    const parameters = importParameters(fn.parameters, line, `${fnPath}.parameters`, issues);
    if (!parameters) return undefined;
    out.parameters = parameters;
  } else {
    out.parameters = { type: 'object', properties: {} };
  }
  return { type: 'function', function: out };
}

/** JSON Schema stays as it is (pseudo-types inside it mapped); a bare `{arg: {type, description}}` map gets wrapped. */
function importParameters(value: unknown, line: number, path: string, issues: ConvertIssue[]): JsonSchema | undefined {
  if (!isPlainObject(value)) {
    issues.push(issue(line, 'IMPORT_BAD_TOOL', path, 'parameters must be an object'));
    return undefined;
  }
  if (typeof value.type === 'string' || isPlainObject(value.properties)) return normalizeSchema(value, line, path, issues);
  // Null-prototype maps: a parameter named `__proto__` is a property like any other, in properties as in required.
  const properties: Record<string, JsonSchema> = Object.create(null);
  const required: string[] = [];
  for (const [name, spec] of Object.entries(value)) {
    if (!isPlainObject(spec)) {
      issues.push(issue(line, 'IMPORT_BAD_TOOL', `${path}.${name}`, `parameter ${JSON.stringify(name)} must be an object`));
      return undefined;
    }
    const { schema, optional } = propertyFromPseudo(spec, line, `${path}.${name}`, issues);
    properties[name] = schema;
    // xLAM marks optional parameters by type ("str, optional") or, as often, only by giving a default.
    if (!optional && !Object.hasOwn(spec, 'default')) required.push(name);
  }
  return { type: 'object', properties, required };
}

function propertyFromPseudo(spec: Record<string, unknown>, line: number, path: string, issues: ConvertIssue[]): MappedType {
  const { type, ...rest } = spec;
  if (typeof type !== 'string') return { schema: normalizeSchema(spec, line, path, issues), optional: false };
  const mapped = mapPseudoType(type);
  if (!mapped) {
    issues.push(issue(line, 'IMPORT_TOOL_TYPE', `${path}.type`, `type ${JSON.stringify(type)} has no JSON-Schema equivalent; left untyped`, 'warning'));
    return { schema: rest, optional: /\boptional\b/i.test(type) };
  }
  return { schema: { ...mapped.schema, ...rest }, optional: mapped.optional };
}

/** Maps pseudo-types found inside an otherwise JSON-Schema document (`type: "dict"`), recursively. */
function normalizeSchema(schema: Record<string, unknown>, line: number, path: string, issues: ConvertIssue[]): JsonSchema {
  let out: JsonSchema = { ...schema };
  if (typeof schema.type === 'string' && !jsonSchemaTypes.has(schema.type)) {
    const { type, ...rest } = schema;
    const mapped = mapPseudoType(type as string);
    if (mapped) out = { ...mapped.schema, ...rest };
    else {
      out = rest;
      issues.push(issue(line, 'IMPORT_TOOL_TYPE', `${path}.type`, `type ${JSON.stringify(type)} has no JSON-Schema equivalent; left untyped`, 'warning'));
    }
  }
  if (isPlainObject(schema.properties)) {
    const properties: Record<string, unknown> = Object.create(null);
    for (const [name, sub] of Object.entries(schema.properties)) {
      properties[name] = isPlainObject(sub) ? normalizeSchema(sub, line, `${path}.properties.${name}`, issues) : sub;
    }
    out.properties = properties;
  }
  if (isPlainObject(schema.items)) out.items = normalizeSchema(schema.items, line, `${path}.items`, issues);
  return out;
}

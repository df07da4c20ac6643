import type { Ajv, ValidateFunction } from 'ajv';
import { loadAjv } from '../../node/dependencies.js';
import type { DatasetIssueCode } from '../../readers/issues.js';
import { SCHEMA_MAX_NODES } from '../../readers/limits.js';
import { joinPath, type PathKey } from '../../readers/paths.js';
import { isPlainObject, lookupTable } from '../../util/guards.js';
import { compileLinear, linearRegExpEngine } from './linear-regexp.js';
import { clipForMessage } from '../../util/utf16.js';

/** A problem found in one `parameters` schema, with a path relative to it. */
export interface SchemaProblem {
  code: DatasetIssueCode;
  /** Relative to the `parameters` object, e.g. `properties.city.type`; '' for the schema itself. */
  path: string;
  message: string;
}

export interface CompiledToolSchema {
  /** undefined when the schema could not be compiled (see problems). */
  validate: ValidateFunction | undefined;
  problems: SchemaProblem[];
  /** Top-level property names, when the schema lists them and allows others implicitly. */
  knownProperties: Set<string> | undefined;
}

const jsonSchemaTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const pseudoTypeHints = lookupTable<string>({
  dict: 'object', map: 'object', str: 'string', text: 'string', int: 'integer', long: 'integer', float: 'number',
  double: 'number', bool: 'boolean', list: 'array', tuple: 'array', none: 'null', nonetype: 'null',
});

/**
 * Compiles tool `parameters` schemas once per distinct schema. Keys are JSON text: first as written (cheap,
 * and how most datasets repeat the same tools), then canonical (sorted keys). ajv keeps every compiled schema,
 * so after `limit` distinct schemas the whole instance is dropped to keep memory flat on huge datasets.
 */
export class ToolSchemaCache {
  // ajv is loaded by the first schema compiled, not when the validator is created.
  private ajvInstance: Ajv | undefined;
  private byText = new Map<string, CompiledToolSchema>();
  private byCanonical = new Map<string, CompiledToolSchema>();
  constructor(private readonly limit = 1000) {}

  private get ajv(): Ajv {
    return (this.ajvInstance ??= ToolSchemaCache.newAjv());
  }

  private static newAjv(): Ajv {
    const { Ajv } = loadAjv();
    // ownProperties: `required: ["toString"]` is not met by `{}` through the prototype.
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false, validateSchema: false, ownProperties: true, code: { regExp: linearRegExpEngine } });
    // ajv compares array items pairwise (quadratic: 20k items take seconds); canonical JSON in a set is linear.
    ajv.removeKeyword('uniqueItems');
    ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: false, validate: (unique: boolean, items: unknown[]) => !unique || allDistinct(items) });
    return ajv;
  }

  get(parameters: unknown): CompiledToolSchema {
    const text = JSON.stringify(parameters) ?? 'undefined';
    const hit = this.byText.get(text);
    if (hit) return hit;
    const canonical = canonicalJson(parameters);
    let entry = this.byCanonical.get(canonical);
    if (!entry) {
      if (this.byCanonical.size >= this.limit) this.reset();
      entry = this.compile(parameters);
      this.byCanonical.set(canonical, entry);
    }
    // The same schema written in many key orders would grow this map alone; keep it bounded too.
    if (this.byText.size >= this.limit * 4) this.byText.clear();
    this.byText.set(text, entry);
    return entry;
  }

  private reset(): void {
    this.ajvInstance = undefined;
    this.byText.clear();
    this.byCanonical.clear();
  }

  private compile(parameters: unknown): CompiledToolSchema {
    const problems = shapeProblems(parameters);
    if (problems.length > 0 || !isPlainObject(parameters)) return { validate: undefined, problems, knownProperties: undefined };
    const budget = budgetProblems(parameters);
    if (budget.tooLarge) return { validate: undefined, problems: budget.problems, knownProperties: undefined };
    // `$schema`/`$id` would make ajv look up meta-schemas or register ids globally; they do not change validation here.
    const { $schema: _schema, $id: _id, ...schema } = parameters;
    if (!this.ajv.validateSchema(schema)) {
      const error = this.ajv.errors?.[0];
      const at = error ? pointerKeys(error.instancePath) : '';
      return { validate: undefined, problems: [{ code: 'TOOL_SCHEMA_INVALID', path: at, message: `not a valid JSON Schema: ${at || 'parameters'} ${error?.message ?? ''}`.trim() }], knownProperties: undefined };
    }
    try {
      const validate = this.ajv.compile(schema);
      return { validate, problems: [...budget.problems, ...requiredProblems(schema)], knownProperties: knownProperties(schema) };
    } catch (error) {
      return { validate: undefined, problems: [{ code: 'TOOL_SCHEMA_INVALID', path: '', message: `cannot compile schema: ${(error as Error).message}` }], knownProperties: undefined };
    }
  }
}

function allDistinct(items: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonicalJson(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * Counts the schema's values without recursion (ajv's compile time grows faster than its size: a 100k-value
 * `enum` takes seconds) and finds the patterns the linear engine cannot run. Those are reported and not applied.
 */
function budgetProblems(schema: Record<string, unknown>): { tooLarge: boolean; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  let nodes = 0;
  const stack: Array<[unknown, PathKey[]]> = [[schema, []]];
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (++nodes > SCHEMA_MAX_NODES) {
      const message = `schema holds more than ${SCHEMA_MAX_NODES} values (budget); arguments are not checked against it`;
      return { tooLarge: true, problems: [{ code: 'TOOL_SCHEMA_UNCHECKED', path: '', message }] };
    }
    if (Array.isArray(value)) value.forEach((item, k) => stack.push([item, [...at, k]]));
    else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'pattern' && typeof child === 'string') patternProblem(child, [...at, key], problems);
        if (key === 'patternProperties' && isPlainObject(child)) for (const name of Object.keys(child)) patternProblem(name, [...at, key, name], problems);
        stack.push([child, [...at, key]]);
      }
    }
  }
  return { tooLarge: false, problems };
}

function patternProblem(pattern: string, at: PathKey[], problems: SchemaProblem[]): void {
  const { error } = compileLinear(pattern);
  if (error !== undefined) {
    problems.push({ code: 'TOOL_SCHEMA_UNCHECKED', path: joinPath('', ...at), message: `pattern ${clipForMessage(pattern, 80, JSON.stringify)} ${error}; values are not checked against it` });
  }
}

function pointerKeys(pointer: string): string {
  if (pointer === '') return '';
  const keys: PathKey[] = pointer.slice(1).split('/').map((k) => (/^\d+$/.test(k) ? Number(k) : k.replaceAll('~1', '/').replaceAll('~0', '~')));
  return joinPath('', ...keys);
}

/** Sorted-key JSON, so the same schema written with keys in another order shares one compiled validator. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Problems that make a schema unusable before ajv sees it: pseudo-types, and xLAM-style bare argument maps. */
function shapeProblems(parameters: unknown): SchemaProblem[] {
  if (!isPlainObject(parameters)) {
    return [{ code: 'TOOL_SCHEMA_INVALID', path: '', message: 'parameters must be a JSON Schema object' }];
  }
  const problems: SchemaProblem[] = [];
  walkTypes(parameters, [], problems);
  if (problems.length > 0) return problems;
  const type = parameters.type;
  if (type === undefined && parameters.properties === undefined) {
    const entries = Object.values(parameters);
    if (entries.length > 0 && entries.every((v) => isPlainObject(v) && 'type' in v)) {
      problems.push({ code: 'TOOL_SCHEMA_INVALID', path: '', message: 'parameters is a bare map of arguments (xLAM style); wrap it as {"type": "object", "properties": {...}}' });
    }
  } else if (type !== undefined && type !== 'object') {
    problems.push({ code: 'TOOL_SCHEMA_INVALID', path: 'type', message: `parameters must describe an object (type "object"), not ${JSON.stringify(type)}` });
  }
  return problems;
}

const subschemaMaps = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const subschemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const subschemaSingles = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems'];

function walkTypes(schema: unknown, at: PathKey[], problems: SchemaProblem[]): void {
  if (!isPlainObject(schema) || problems.length >= 20) return;
  const type = schema.type;
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  types.forEach((t, k) => {
    if (typeof t === 'string' && jsonSchemaTypes.has(t)) return;
    const path = joinPath('', ...at, 'type', ...(Array.isArray(type) ? [k] : []));
    problems.push({ code: 'TOOL_PSEUDO_TYPE', path, message: pseudoTypeMessage(t) });
  });
  for (const key of subschemaMaps) {
    const map = schema[key];
    if (isPlainObject(map)) for (const [name, sub] of Object.entries(map)) walkTypes(sub, [...at, key, name], problems);
  }
  for (const key of subschemaLists) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, k) => walkTypes(sub, [...at, key, k], problems));
  }
  for (const key of subschemaSingles) {
    const sub = schema[key];
    if (Array.isArray(sub)) sub.forEach((s, k) => walkTypes(s, [...at, key, k], problems));
    else walkTypes(sub, [...at, key], problems);
  }
}

function pseudoTypeMessage(type: unknown): string {
  if (typeof type !== 'string') return `type ${JSON.stringify(type)} is not a JSON Schema type`;
  const comma = type.indexOf(',');
  const base = (comma === -1 ? type : type.slice(0, comma)).trim().toLowerCase();
  const hint = pseudoTypeHints[base] ?? (jsonSchemaTypes.has(base) ? base : undefined);
  const optional = comma !== -1 && type.slice(comma + 1).trim().toLowerCase().startsWith('optional');
  let message = `"${type}" is not a JSON Schema type`;
  if (hint) message += `; use "${hint}"`;
  if (optional) message += ' and leave the parameter out of "required"';
  return message;
}

function requiredProblems(schema: Record<string, unknown>): SchemaProblem[] {
  const required = schema.required;
  const properties = schema.properties;
  if (!Array.isArray(required) || !isPlainObject(properties)) return [];
  const problems: SchemaProblem[] = [];
  required.forEach((name, k) => {
    if (typeof name === 'string' && !Object.hasOwn(properties, name)) {
      problems.push({ code: 'TOOL_REQUIRED_UNKNOWN', path: joinPath('', 'required', k), message: `required parameter "${name}" is not in properties` });
    }
  });
  return problems;
}

function knownProperties(schema: Record<string, unknown>): Set<string> | undefined {
  if (!isPlainObject(schema.properties) || schema.additionalProperties !== undefined || schema.patternProperties !== undefined) return undefined;
  return new Set(Object.keys(schema.properties));
}

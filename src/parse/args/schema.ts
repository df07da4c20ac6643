import type { JsonSchema } from '../../types.js';

/** JSON value kinds a parameter schema can admit, besides strings. */
export type TypedKind = 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/**
 * What a property schema admits, reduced to what argument typing needs.
 * `anyString`: every string is allowed (so raw text is the value).
 * `stringValues`: specific strings allowed by `enum`/`const` without `type`.
 * `typed`: the non-string kinds allowed. All empty = no usable type information.
 */
export interface AdmittedTypes {
  anyString: boolean;
  stringValues: Set<string>;
  typed: Set<TypedKind>;
}

// Tool authors write Python or TypeScript names as often as JSON Schema ones.
const typeAliases: Record<string, 'string' | TypedKind> = {
  string: 'string',
  str: 'string',
  text: 'string',
  integer: 'integer',
  int: 'integer',
  number: 'number',
  float: 'number',
  double: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  null: 'null',
  none: 'null',
  object: 'object',
  dict: 'object',
  array: 'array',
  list: 'array',
  tuple: 'array',
};

const maxSchemaDepth = 32;

export function admittedTypes(schema: JsonSchema | undefined): AdmittedTypes {
  const result = emptyTypes();
  if (schema) collect(schema, result, 0);
  return result;
}

export function isEmpty(admitted: AdmittedTypes): boolean {
  return !admitted.anyString && admitted.stringValues.size === 0 && admitted.typed.size === 0;
}

function emptyTypes(): AdmittedTypes {
  return { anyString: false, stringValues: new Set(), typed: new Set() };
}

function collect(schema: JsonSchema, into: AdmittedTypes, depth: number): void {
  if (depth > maxSchemaDepth) return;
  // allOf narrows: a value must satisfy this node and every branch that says anything about types.
  let own = ownTypes(schema);
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) {
      if (!isSchema(branch)) continue;
      const branchTypes = emptyTypes();
      collect(branch, branchTypes, depth + 1);
      if (!isEmpty(branchTypes)) own = own ? intersect(own, branchTypes) : branchTypes;
    }
  }
  if (own) merge(into, own);
  // anyOf/oneOf widen (a sibling `type` is usually the same union written twice).
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) collect(branch, into, depth + 1);
  }
}

/** The types one schema node states itself (`type`, else `enum`/`const`, else implied by keywords). */
function ownTypes(schema: JsonSchema): AdmittedTypes | undefined {
  const result = emptyTypes();
  const type = schema.type;
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (names) {
    for (const name of names) {
      const kind = typeof name === 'string' ? typeAliases[name.toLowerCase()] : undefined;
      if (kind === 'string') result.anyString = true;
      else if (kind) result.typed.add(kind);
    }
  } else if (Array.isArray(schema.enum) || 'const' in schema) {
    const values = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    for (const value of values) {
      if (typeof value === 'string') result.stringValues.add(value);
      else result.typed.add(kindOfValue(value));
    }
  } else if (isSchema(schema.properties) || isSchema(schema.additionalProperties)) {
    result.typed.add('object');
  } else if (isSchema(schema.items) || Array.isArray(schema.prefixItems)) {
    result.typed.add('array');
  }
  // OpenAPI 3.0 spelling of "or null".
  if (schema.nullable === true && !isEmpty(result)) result.typed.add('null');
  return isEmpty(result) ? undefined : result;
}

function kindOfValue(value: unknown): TypedKind {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return Array.isArray(value) ? 'array' : 'object';
}

function merge(into: AdmittedTypes, from: AdmittedTypes): void {
  into.anyString ||= from.anyString;
  for (const value of from.stringValues) into.stringValues.add(value);
  for (const kind of from.typed) into.typed.add(kind);
}

function intersect(a: AdmittedTypes, b: AdmittedTypes): AdmittedTypes {
  const stringValues = new Set<string>();
  for (const value of a.stringValues) if (b.anyString || b.stringValues.has(value)) stringValues.add(value);
  if (a.anyString) for (const value of b.stringValues) stringValues.add(value);
  const typed = new Set<TypedKind>();
  for (const kind of a.typed) {
    if (b.typed.has(kind)) typed.add(kind);
    // An integer is a number, so integer ∩ number = integer.
    else if (kind === 'integer' && b.typed.has('number')) typed.add('integer');
    else if (kind === 'number' && b.typed.has('integer')) typed.add('integer');
  }
  return { anyString: a.anyString && b.anyString, stringValues, typed };
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { declaredKindOf, type ValueKind } from '../../args/coerce.js';
import { admittedTypes, type AdmittedTypes } from '../../args/schema.js';
import type { ToolIndex } from '../../core.js';
import type { JsonSchema } from '../../../types.js';

/** A tool parameter's schema and the types it admits. */
export interface ParameterTypes {
  schema: JsonSchema | undefined;
  admitted: AdmittedTypes;
  /** How a value is read when the wire declares no type (declaredKind). */
  kind: ValueKind;
}

const NO_SCHEMA = typesOf(undefined);

const memo = new WeakMap<ToolIndex, Map<string, Map<string, ParameterTypes>>>();

/**
 * The schema of a call's parameter and what it admits, worked out once per tool index (one parse or stream) rather
 * than for every value: raw-text families ask for each parameter two or three times, and reducing a schema to its
 * types allocates sets each time, work a first parse runs in V8's slowest tiers. Keyed by the index, so a schema the
 * caller changes between parses is read again.
 */
export function parameterTypes(tools: ToolIndex, name: string | undefined, key: string): ParameterTypes {
  if (name === undefined) return NO_SCHEMA;
  let byTool = memo.get(tools);
  if (byTool === undefined) memo.set(tools, (byTool = new Map()));
  let byKey = byTool.get(name);
  if (byKey === undefined) byTool.set(name, (byKey = new Map()));
  let types = byKey.get(key);
  if (types === undefined) {
    const schema = tools.parameterSchema(name, key);
    types = schema === undefined ? NO_SCHEMA : typesOf(schema);
    byKey.set(key, types);
  }
  return types;
}

function typesOf(schema: JsonSchema | undefined): ParameterTypes {
  const admitted = admittedTypes(schema);
  return { schema, admitted, kind: declaredKindOf(admitted, undefined) };
}

import { pyJsonLoads, setKey } from './pyjson.js';
import { isDict, pyFloat, pyInt, pyStrip, pyTruthy } from './python.js';

/** Tool name → its parameters' `properties` (missing → {}), from OpenAI tool dicts or bare {name, parameters}. */
export type ToolProperties = Map<string, Record<string, unknown>>;

/** Entries that are not tool dicts, or have no string name, are skipped (transformers skips them too). */
export function toolProperties(tools: readonly unknown[]): ToolProperties {
  const map: ToolProperties = new Map();
  for (const tool of tools) {
    if (!isDict(tool)) continue;
    const fn = Object.hasOwn(tool, 'function') ? tool['function'] : tool;
    if (!isDict(fn) || typeof fn['name'] !== 'string') continue;
    const params = isDict(fn['parameters']) ? fn['parameters'] : {};
    map.set(fn['name'], isDict(params['properties']) ? params['properties'] : {});
  }
  return map;
}

/** JSON-schema types in order: `type` (str or list), then `anyOf`/`oneOf` branches, then `null` for `nullable`. */
export function schemaTypes(schema: unknown): string[] {
  if (!isDict(schema)) return [];
  const types: string[] = [];
  const t = schema['type'];
  if (typeof t === 'string') types.push(t);
  else if (Array.isArray(t)) types.push(...t.filter((x): x is string => typeof x === 'string'));
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) types.push(...schemaTypes(b));
  }
  if (pyTruthy(schema['nullable']) && !types.includes('null')) types.push('null');
  return types;
}

const RAW = Symbol('raw');

function tryType(raw: string, type: string): unknown {
  try {
    switch (type) {
      case 'integer': return pyInt(raw);
      case 'number': {
        const f = pyFloat(raw);
        if (!Number.isFinite(f)) return RAW;
        // Python returns int(f) when the text has no '.': an int has no negative zero.
        return Number.isInteger(f) && !raw.includes('.') && f === 0 ? 0 : f;
      }
      case 'boolean': {
        const t = pyStrip(raw).toLowerCase();
        return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : RAW;
      }
      case 'null': { const t = pyStrip(raw); return t === 'null' || t === 'None' ? null : RAW; }
      case 'object': case 'array': {
        const v = pyJsonLoads(raw);
        return (type === 'object' ? isDict(v) : Array.isArray(v)) ? v : RAW;
      }
      default: return RAW;
    }
  } catch {
    return RAW;
  }
}

/** transformers' `_coerce`: the first type the text reads as, else the text unchanged. */
export function coerceValue(raw: string, types: readonly string[]): unknown {
  for (const type of types) {
    const v = tryType(raw, type);
    if (v !== RAW) return v;
  }
  return raw;
}

/**
 * Casts string arguments of call-shaped values (`{function: {name, arguments: dict}}`, or a list of them) to the
 * declared parameter types, in place; already-typed values, unknown tools and unknown keys are left alone.
 */
export function castToolCalls(value: unknown, tools: ToolProperties): unknown {
  if (Array.isArray(value)) {
    for (const item of value) castToolCalls(item, tools);
    return value;
  }
  castCall(value, tools);
  return value;
}

function castCall(call: unknown, tools: ToolProperties): void {
  if (!isDict(call) || !isDict(call['function'])) return;
  const fn = call['function'];
  const name = fn['name'], args = fn['arguments'];
  if (typeof name !== 'string' || !isDict(args)) return;
  const props = tools.get(name);
  if (!props) return;
  for (const [key, raw] of Object.entries(args)) {
    const types = schemaTypes(props[key]);
    if (types.length === 0) continue;
    if (typeof raw === 'string') setKey(args, key, coerceValue(raw, types));
    else if (Array.isArray(raw)) setKey(args, key, raw.map((item) => (typeof item === 'string' ? coerceValue(item, types) : item)));
  }
}

/** castToolCalls against a tools list (OpenAI or bare tool dicts). */
export function castWithTools(value: unknown, tools: readonly unknown[]): unknown {
  return castToolCalls(value, toolProperties(tools));
}

import { PyFloat, pythonJsonDumps } from '../jinja/index.js';
import { isPlainObject } from '../util/guards.js';

/**
 * JSON text of a converted row, compact as JSON.stringify writes it, keeping the Python value model the rows were
 * read with (`parsePythonJson`): `1.0` (PyFloat) stays `1.0`, integers past 2^53 (bigint) keep every digit, and a Map
 * (an object whose integer-like keys JS would reorder) keeps its key order.
 */
export function exactJson(value: unknown): string {
  if (typeof value === 'bigint' || value instanceof PyFloat) return pythonJsonDumps(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : exactJson(item))).join(',')}]`;
  if (value instanceof Map) return members([...value].map(([key, item]) => [String(key), item]));
  if (isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') return members(Object.entries(value));
  return JSON.stringify(value) ?? 'null';
}

function members(entries: Array<[string, unknown]>): string {
  const parts: string[] = [];
  for (const [key, item] of entries) {
    if (item === undefined || typeof item === 'function') continue;
    parts.push(`${JSON.stringify(key)}:${exactJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}

import { PyFloat, pythonJsonDumps } from '../jinja/index.js';
import { isPlainObject } from '../util/guards.js';

/**
 * JSON text of a converted row, compact as JSON.stringify writes it, keeping the Python value model the rows were
 * read with (`parsePythonJson`): `1.0` (PyFloat) stays `1.0`, integers past 2^53 (bigint) keep every digit, and a Map
 * (an object whose integer-like keys JS would reorder) keeps its key order.
 */
export function exactJson(value: unknown): string {
  // Most rows hold none of those: the native serializer is several times faster than the walk below.
  return holdsPythonValues(value) ? writeExact(value) : (JSON.stringify(value) ?? 'null');
}

/**
 * An untrusted row value quoted in an issue message. Importers read rows in render's number model, where JSON.stringify
 * throws on an integer past 2^53 (a bigint): a row whose role was 9007199254740993 became an INTERNAL_ERROR instead of
 * the importer's own issue. Written as the row wrote it; a missing value is `undefined`.
 */
export function quotedValue(value: unknown): string {
  return value === undefined ? 'undefined' : exactJson(value);
}

function holdsPythonValues(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'bigint' || current instanceof PyFloat || current instanceof Map) return true;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (const item of current) if (typeof item === 'object' || typeof item === 'bigint') stack.push(item);
    } else {
      for (const key in current) {
        const item = (current as Record<string, unknown>)[key];
        if (typeof item === 'object' || typeof item === 'bigint') stack.push(item);
      }
    }
  }
  return false;
}

function writeExact(value: unknown): string {
  if (typeof value === 'bigint' || value instanceof PyFloat) return pythonJsonDumps(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : writeExact(item))).join(',')}]`;
  if (value instanceof Map) return members([...value].map(([key, item]) => [String(key), item]));
  if (isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') return members(Object.entries(value));
  return JSON.stringify(value) ?? 'null';
}

function members(entries: Array<[string, unknown]>): string {
  const parts: string[] = [];
  for (const [key, item] of entries) {
    if (item === undefined || typeof item === 'function') continue;
    parts.push(`${JSON.stringify(key)}:${writeExact(item)}`);
  }
  return `{${parts.join(',')}}`;
}

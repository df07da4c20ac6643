// JS objects list integer-like keys ("0", "10") first, whatever order they were written in; Python dicts keep the
// order of insertion. An object json.loads would read with such a key carries its keys in source order under a
// non-enumerable symbol, so arguments written back as JSON text keep the model's order (`{"b": 1, "10": 2}` stays
// b, 10) while the object itself is still a plain object to everything else.
import { isArrayIndexKey } from '../jinja/values.js';

const SOURCE_ORDER = Symbol('chatfmt.sourceKeyOrder');

type Ordered = Record<string, unknown> & { [SOURCE_ORDER]?: readonly string[] };

/** True when JS would list `keys` (in the order they were first written) differently: integer-like keys ascending first. */
function reordersKeys(keys: readonly string[]): boolean {
  const integers = keys.filter(isArrayIndexKey);
  if (integers.length === 0) return false;
  const jsOrder = [...integers.sort((a, b) => Number(a) - Number(b)), ...keys.filter((key) => !isArrayIndexKey(key))];
  return jsOrder.some((key, i) => key !== keys[i]);
}

/** Records `keys`, first-written order, on `obj` when JS lists them in another order. */
export function keepSourceOrder(obj: Record<string, unknown>, keys: readonly string[]): void {
  if (!reordersKeys(keys)) return;
  Object.defineProperty(obj, SOURCE_ORDER, { value: Object.freeze([...keys]), enumerable: false });
}

/** JSON.stringify, except that objects read from JSON text list their keys in the order the text had them. */
export function jsonInSourceOrder(value: unknown): string {
  return hasSourceOrder(value, 0) ? write(value) ?? 'null' : JSON.stringify(value);
}

/** Depth bound for the search; deeper values are written by JSON.stringify (parse limits nesting well below this). */
const MAX_DEPTH = 1000;

function hasSourceOrder(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => hasSourceOrder(item, depth + 1));
  if ((value as Ordered)[SOURCE_ORDER] !== undefined) return true;
  for (const key in value) if (hasSourceOrder((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** JSON text of `value` as JSON.stringify writes it (undefined where it would omit the value), keys in source order. */
function write(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const obj = value as Ordered;
  const recorded = obj[SOURCE_ORDER];
  const keys = recorded !== undefined && recorded.length === Object.keys(obj).length && recorded.every((k) => Object.hasOwn(obj, k))
    ? recorded
    : Object.keys(obj);
  const members: string[] = [];
  for (const key of keys) {
    const text = write(obj[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

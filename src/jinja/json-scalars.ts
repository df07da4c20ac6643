// json.dumps of the leaves (strings, floats, keys): shared by the exact writer and its fast path.
import { floatRepr, intStr } from './repr.js';
import { PyFloat } from './values.js';

export function jsonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return floatRepr(value);
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const NEEDS_ESCAPE_ASCII = /["\\\u0000-\u001f\u007f-\uffff]/;

export function jsonString(s: string, ensureAscii: boolean): string {
  if (!(ensureAscii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return '"' + s + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c === 34) esc = '\\"';
    else if (c === 92) esc = '\\\\';
    else if (c < 32) {
      esc = c === 10 ? '\\n' : c === 13 ? '\\r' : c === 9 ? '\\t' : c === 8 ? '\\b' : c === 12 ? '\\f' : '\\u' + c.toString(16).padStart(4, '0');
    } else if (ensureAscii && c > 126) esc = '\\u' + c.toString(16).padStart(4, '0');
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

/** A dict key as json.dumps writes it (before quoting), or undefined for a key type it refuses. */
export function keyString(key: unknown): string | undefined {
  if (typeof key === 'string') return key;
  if (typeof key === 'number') return Number.isInteger(key) ? intStr(key) : jsonFloat(key);
  if (typeof key === 'bigint') return key.toString();
  if (key instanceof PyFloat) return jsonFloat(key.value);
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (key === null) return 'null';
  return undefined;
}

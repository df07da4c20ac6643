import { RegionError } from './errors.js';
import { pyInt } from './python.js';
import { keepSourceOrder } from './source-order.js';
import { isArrayIndexKey } from '../jinja/values.js';
import { jsonStringEnd } from '../util/json-string.js';

/** Python `json.JSONDecodeError` (a ValueError that `allow_non_json` catches, unlike other ValueErrors). */
export class JsonDecodeError extends RegionError {
  constructor(message: string) {
    super('ValueError', message);
  }
}

/** Python's json decoder recurses; CPython's default recursion limit stops it near this depth (RecursionError). */
const MAX_DEPTH = 990;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

/** Sets a key as an own data property, so a `__proto__` key from model output stays data. */
export function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Python `json.loads` on a str: NaN/Infinity/-Infinity accepted, duplicate keys keep the last value at the first
 * key's place, raw control characters in strings rejected, integers through Python int() (so >4300 digits is a
 * plain ValueError, not a decode error). Integers and floats both become JS numbers.
 */
export function pyJsonLoads(text: string): unknown {
  return nativeLoads(text) ?? new Decoder(text).document();
}

/** Nesting the native path accepts; deeper documents go to the decoder, which knows where Python's recursion stops. */
const NATIVE_MAX_DEPTH = 256;

/**
 * The whole document through JSON.parse, which accepts a subset of what json.loads accepts (no NaN/Infinity, no BOM)
 * and reads it the same way: same whitespace, escapes, control-character refusal, lone surrogates kept, duplicate keys
 * keeping the last value at the first key's place, `__proto__` as a data key. What differs is checked on the result:
 * Python reads `-0` as the int 0 (but `-0.0` as -0.0), rejects integers past 4,300 digits and recurses. Anything
 * unusual returns null and the exact decoder decides, so errors keep Python's wording.
 */
function nativeLoads(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  // null parsed natively is indistinguishable from "go slow"; the decoder reads `null` documents just as well.
  return value === null || !ordinary(value, 0) ? null : value;
}

/**
 * No -0 or non-finite number (where Python's int/float reading differs), no deep nesting, and no object with an
 * integer-like key (JS moves those to the front, so the decoder records the written order).
 */
function ordinary(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return value !== 0 ? Number.isFinite(value) : !Object.is(value, -0);
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= NATIVE_MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!ordinary(item, depth + 1)) return false;
    return true;
  }
  let first = true;
  for (const key in value) {
    // JS lists integer-like keys first, so the first key tells whether there is one.
    if (first && isArrayIndexKey(key)) return false;
    first = false;
    if (!ordinary((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** JSON's one-character escapes (allocated once: escapes are the common case in code-carrying arguments). */
const SIMPLE_ESCAPES = new Map([['"', '"'], ['\\', '\\'], ['/', '/'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t']]);

class Decoder {
  private i = 0;
  constructor(private readonly s: string) {}

  document(): unknown {
    if (this.s.startsWith('\ufeff')) throw new JsonDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)');
    this.ws();
    const value = this.value(0);
    this.ws();
    if (this.i !== this.s.length) this.fail('Extra data');
    return value;
  }

  private fail(what: string, at = this.i): never {
    const before = this.s.slice(0, at);
    const line = before.split('\n').length;
    const column = at - (before.lastIndexOf('\n') + 1) + 1;
    throw new JsonDecodeError(`${what}: line ${line} column ${column} (char ${Array.from(before).length})`);
  }

  private ws(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }

  private value(depth: number): unknown {
    const c = this.s[this.i];
    if (c === '"') return this.string();
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) throw new RegionError('RuntimeError', 'maximum recursion depth exceeded while decoding a JSON document', true);
      return c === '{' ? this.object(depth + 1) : this.array(depth + 1);
    }
    for (const [word, v] of [['null', null], ['true', true], ['false', false], ['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity]] as const) {
      if (this.s.startsWith(word, this.i)) { this.i += word.length; return v; }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (m) {
      this.i += m[0].length;
      return m[1] === undefined && m[2] === undefined ? pyInt(m[0]) : Number(m[0]);
    }
    return this.fail('Expecting value');
  }

  private object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys: string[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') { this.i++; return out; }
    for (;;) {
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      if (!Object.hasOwn(out, key)) keys.push(key);
      setKey(out, key, this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') {
        keepSourceOrder(out, keys);
        return out;
      }
      if (c !== ',') this.fail("Expecting ',' delimiter", this.i - 1);
      this.ws();
    }
  }

  private array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') { this.i++; return out; }
    for (;;) {
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("Expecting ',' delimiter", this.i - 1);
      this.ws();
    }
  }

  private string(): string {
    const fast = this.wellFormedString();
    return fast ?? this.decodeString();
  }

  /**
   * A string literal with nothing to report, decoded natively (escapes are the common case in code-carrying
   * arguments, and piecing them together one by one is slow): the closing quote is the first one not escaped by an
   * odd run of backslashes, found with indexOf, and JSON.parse accepts exactly the literals json.loads accepts (same
   * escapes, control characters refused, lone surrogates kept). null sends anything unusual to the exact decoder,
   * which words the errors as Python does.
   */
  private wellFormedString(): string | null {
    const s = this.s;
    const close = jsonStringEnd(s, this.i);
    if (close < 0) return null;
    try {
      const value = JSON.parse(s.slice(this.i, close + 1)) as string;
      this.i = close + 1;
      return value;
    } catch {
      return null;
    }
  }

  private decodeString(): string {
    const start = this.i;
    this.i++;
    let out = '';
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (Number.isNaN(c)) this.fail('Unterminated string starting at', start);
      if (c === 0x22) { this.i++; return out; }
      if (c < 0x20) this.fail('Invalid control character at');
      if (c !== 0x5c) {
        // Copy the run of plain characters in one slice.
        let j = this.i + 1;
        while (j < this.s.length) {
          const d = this.s.charCodeAt(j);
          if (d === 0x22 || d === 0x5c || d < 0x20) break;
          j++;
        }
        out += this.s.slice(this.i, j);
        this.i = j;
        continue;
      }
      const e = this.s[this.i + 1];
      const simple = e === undefined ? undefined : SIMPLE_ESCAPES.get(e);
      if (simple !== undefined) { out += simple; this.i += 2; continue; }
      if (e !== 'u') this.fail('Invalid \\escape', this.i);
      const hi = this.hex4(this.i + 2);
      this.i += 6;
      if (hi >= 0xd800 && hi <= 0xdbff && this.s.startsWith('\\u', this.i)) {
        const lo = this.hex4(this.i + 2);
        if (lo >= 0xdc00 && lo <= 0xdfff) { out += String.fromCharCode(hi, lo); this.i += 6; continue; }
      }
      out += String.fromCharCode(hi);
    }
  }

  private hex4(at: number): number {
    const h = this.s.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('Invalid \\uXXXX escape', at - 1);
    return parseInt(h, 16);
  }
}

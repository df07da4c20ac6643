// Python str() and repr() of template values.
import { chargeChars } from './budget.js';
import { PyError } from './errors.js';
import { bitLength } from './numbers.js';
import {
  Callable, RuntimeObject, Markup, Namespace, PyFloat, PyGenerator, Undefined, dictEntries, isDict, isTuple, setReprHook,
} from './values.js';

// Python refuses to print an int of more than 4,300 digits (sys.int_info.str_digits_check_threshold): a ValueError.
const MAX_STR_DIGITS = 4300;

export function intStr(value: number | bigint): string {
  if (typeof value === 'bigint') {
    const text = bitLength(value) > 14_500 ? null : value.toString();
    if (text === null || text.length - (value < 0n ? 1 : 0) > MAX_STR_DIGITS) {
      throw new PyError('ValueError', `Exceeds the limit (${MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`);
    }
    return text;
  }
  return Math.abs(value) < 1e21 ? String(value) : BigInt(value).toString();
}

/** Python float repr: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const exp = value.toExponential(); // shortest digits, e.g. "1.2345e+2"
  const e = exp.indexOf('e');
  const mantissa = exp.slice(0, e);
  const exponent = Number(exp.slice(e + 1));
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  }
  const mant = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  const absExp = Math.abs(exponent);
  return `${sign}${mant}e${exponent < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
}

export function numberStr(value: number): string {
  return Number.isInteger(value) ? intStr(value) : floatRepr(value);
}

/** Python str(value) as jinja2 prints it ({{ }}, |string, ~). */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Undefined || value === undefined) return '';
  if (value instanceof Markup) return value.text;
  return pyRepr(value);
}

// Python's str.isprintable(): these categories are escaped by repr(). Built on first use: this class takes V8 about
// 0.25 ms to build, which every CLI start paid at load.
let nonPrintable: RegExp | undefined;

/** str.isprintable(): no character of a category repr escapes, the space apart. */
export function isPrintable(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 32 || (c > 32 && c < 127)) continue;
    if (c < 32 || c === 127 || (nonPrintable ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u).test(ch)) return false;
  }
  return true;
}

/** repr of printable ASCII without backslashes, or undefined when a character needs escaping. */
function plainAsciiRepr(s: string): string | undefined {
  let single = false;
  let double = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126 || c === 92) return undefined;
    if (c === 39) single = true;
    else if (c === 34) double = true;
  }
  if (!single) return "'" + s + "'";
  return double ? undefined : '"' + s + '"';
}

export function strRepr(s: string): string {
  // Dict keys and most values: no per-character walk over code points (a string allocated per character).
  const plain = plainAsciiRepr(s);
  if (plain !== undefined) return plain;
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c < 32 || c === 127) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c < 128 || c === 32) out += ch;
    else if ((nonPrintable ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u).test(ch)) {
      if (c < 0x100) out += '\\x' + c.toString(16).padStart(2, '0');
      else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
      else out += '\\U' + c.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}

/** Python repr(value). Inside a render, the text of every list and dict is charged as it is joined. */
export function pyRepr(value: unknown): string {
  // Scalars (every `{{ n }}` of a number goes through here) need no walk state; a container starts one.
  return reprOf(value, undefined);
}

/**
 * One repr walk. `open` holds the containers being written (a cycle prints `[...]`); `written` keeps the text of a
 * container already written, so a list repeated a thousand times is walked once and only its copies are charged: the
 * same amplification `tojson` guards against. A container whose text met a cycle depends on its ancestors and is not kept.
 */
interface ReprWalk {
  open: Set<unknown>;
  written: Map<unknown, string>;
  cycles: number;
}

function reprOf(value: unknown, walk: ReprWalk | undefined): string {
  switch (typeof value) {
    case 'string':
      return strRepr(value);
    case 'boolean':
      return value ? 'True' : 'False';
    case 'number':
      return numberStr(value);
    case 'bigint':
      return intStr(value);
    case 'undefined':
      return 'Undefined';
    case 'function':
      return '<function>';
  }
  if (value === null) return 'None';
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (value instanceof Undefined) return 'Undefined';
  if (Array.isArray(value) || isDict(value)) {
    const flat = walk === undefined && Array.isArray(value) ? flatListRepr(value) : undefined;
    return flat ?? containerRepr(value, walk ?? { open: new Set(), written: new Map(), cycles: 0 });
  }
  if (value instanceof Markup) return `Markup(${strRepr(value.text)})`;
  // CPython prints the generator's address; a fixed one keeps renders reproducible.
  if (value instanceof PyGenerator) return `<generator object ${value.functionName} at 0x7f0000000000>`;
  if (value instanceof Namespace) return `<Namespace ${reprOf(value.attrs, walk)}>`;
  if (value instanceof Callable) {
    return value.kind === 'Macro' ? `<Macro '${value.name}'>` : `<built-in method ${value.name}>`;
  }
  if (value instanceof RuntimeObject) return value.pyRepr();
  return '<object>';
}

/**
 * A list of str, int, float, bool and None (`enum` and `required` lists printed with `|string`): written in one
 * pass, without the walk state a nested container needs, and charged as containerRepr charges. Undefined for
 * tuples and lists holding anything else.
 */
function flatListRepr(list: unknown[]): string | undefined {
  if (isTuple(list)) return undefined;
  const value: unknown[] = list;
  let out = '[';
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    let text: string;
    if (typeof item === 'string') text = strRepr(item);
    else if (typeof item === 'number') text = numberStr(item);
    else if (typeof item === 'boolean') text = item ? 'True' : 'False';
    else if (item === null) text = 'None';
    else return undefined;
    out += i === 0 ? text : ', ' + text;
  }
  // containerRepr's charge: two brackets, and two characters after every item.
  chargeChars(out.length + (value.length > 0 ? 2 : 0));
  return out + ']';
}

function containerRepr(value: unknown[] | Parameters<typeof dictEntries>[0], walk: ReprWalk): string {
  const list = Array.isArray(value);
  if (walk.open.has(value)) {
    walk.cycles++;
    return !list ? '{...}' : isTuple(value) ? '(...)' : '[...]';
  }
  const known = walk.written.get(value);
  if (known !== undefined) {
    chargeChars(known.length);
    return known;
  }
  const cyclesBefore = walk.cycles;
  walk.open.add(value);
  const parts = list ? value.map((item) => reprOf(item, walk)) : dictEntries(value).map(([k, v]) => `${reprOf(k, walk)}: ${reprOf(v, walk)}`);
  walk.open.delete(value);
  let length = 2;
  for (const part of parts) length += part.length + 2;
  chargeChars(length);
  const text = !list ? `{${parts.join(', ')}}` : !isTuple(value) ? `[${parts.join(', ')}]` : parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`;
  if (walk.cycles === cyclesBefore) walk.written.set(value, text);
  return text;
}

setReprHook((value) => pyRepr(value));

// Number filters: int, float, round (Python parsing and banker's rounding).
import { PyError, typeError } from './errors.js';
import { arg, type Kwargs } from './filter-args.js';
import { pyStrip } from './methods.js';
import { asFloat, bitLength, makeFloat, normInt, truncInt } from './numbers.js';
import { roundFloat, roundInt } from './format-number.js';
import { pyTypeName } from './values.js';

/** [+-]digits[.digits][e[+-]digits] with at least one mantissa digit (scanned, no regex backtracking). */
export function isDecimalLiteral(s: string): boolean {
  let i = 0;
  const digitsAt = (from: number): number => {
    let j = from;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    return j;
  };
  if (s[i] === '+' || s[i] === '-') i++;
  let j = digitsAt(i);
  let mantissa = j - i;
  if (s[j] === '.') {
    const k = digitsAt(j + 1);
    mantissa += k - j - 1;
    j = k;
  }
  if (mantissa === 0) return false;
  if (s[j] === 'e') {
    let k = j + 1;
    if (s[k] === '+' || s[k] === '-') k++;
    const end = digitsAt(k);
    if (end === k) return false;
    j = end;
  }
  return j === s.length;
}

let decimalDigit: RegExp | undefined;

/**
 * Python's int() and float() read any Unicode decimal digit ('١٢٣' is 123) and any Unicode space: both become ASCII
 * before parsing. A digit's value is its place in its run: Unicode keeps each script's 0 to 9 contiguous.
 */
function asciiNumberText(text: string): string {
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  decimalDigit ??= /^\p{Nd}$/u;
  const digit = decimalDigit;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 && digit.test(ch)) {
      let zero = cp;
      while (digit.test(String.fromCodePoint(zero - 1))) zero--;
      out += String((cp - zero) % 10);
    } else if (cp >= 0x80 && pyStrip(ch, null, true, true) === '') out += ' ';
    else out += ch;
  }
  return out;
}

/** Python float(str) parsing; undefined when invalid. */
export function parsePyFloat(text: string): number | undefined {
  const s = pyStrip(asciiNumberText(text), null, true, true).replace(/(\d)_(?=\d)/g, '$1');
  const lower = s.toLowerCase();
  const body = lower.replace(/^[+-]/, '');
  if (body === 'inf' || body === 'infinity') return lower.startsWith('-') ? -Infinity : Infinity;
  if (body === 'nan') return NaN;
  return isDecimalLiteral(lower) ? Number(s) : undefined;
}

// Python refuses int(text, base) past 4,300 digits unless base is a power of two (a ValueError, so |int falls back).
const MAX_INT_DIGITS = 4300;
const RADIX_PREFIX: Record<number, string> = { 16: '0x', 8: '0o', 2: '0b' };

export function parsePyInt(text: string, base: number): number | bigint | undefined {
  // Python refuses any other base (ValueError): not a number here.
  if (!(base === 0 || (base >= 2 && base <= 36))) return undefined;
  let s = pyStrip(asciiNumberText(text), null, true, true).replace(/(\w)_(?=\w)/g, '$1');
  let sign = 1n;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1n;
    s = s.slice(1);
  }
  if (base === 0) {
    base = /^0x/i.test(s) ? 16 : /^0o/i.test(s) ? 8 : /^0b/i.test(s) ? 2 : 10;
  }
  const prefix = RADIX_PREFIX[base];
  if (prefix && s.toLowerCase().startsWith(prefix)) s = s.slice(2);
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
  if (s === '') return undefined;
  s = s.toLowerCase();
  for (let i = 0; i < s.length; i++) if (!digits.includes(s[i]!)) return undefined;
  // BigInt reads decimal and the power-of-two radixes natively, in linear time; the digit loop is quadratic.
  if (prefix) return normInt(sign * BigInt(prefix + s));
  if (s.length > MAX_INT_DIGITS) return undefined;
  if (base === 10) return normInt(sign * BigInt(s));
  let value = 0n;
  for (const ch of s) value = value * BigInt(base) + BigInt(digits.indexOf(ch));
  return normInt(sign * value);
}

export function doRound(value: unknown, args: unknown[], kwargs: Kwargs): unknown {
  const precision = Number(truncInt(arg(args, kwargs, 0, 'precision', 0)) ?? 0);
  const method = arg(args, kwargs, 1, 'method', 'common');
  if (method !== 'common' && method !== 'ceil' && method !== 'floor') {
    throw new PyError('FilterArgumentError', 'method must be common, ceil or floor');
  }
  const isInt = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint' || typeof value === 'boolean';
  const f = asFloat(value);
  if (f === undefined) throw typeError(`type ${pyTypeName(value)} doesn't define __round__ method`);
  if (method === 'common') {
    if (isInt) {
      const n = typeof value === 'boolean' ? (value ? 1 : 0) : (value as number | bigint);
      // round() of an int is an int: unchanged at a precision of 0 or more, else rounded to a power of ten.
      if (precision >= 0) return n;
      const big = BigInt(n);
      // Past every digit of the int (log10(2) < 0.302) it rounds to 0, without building a power of ten that size.
      if (-precision > bitLength(big < 0n ? -big : big) * 0.302 + 2) return 0;
      return normInt(roundInt(big, precision));
    }
    return makeFloat(roundFloat(f, precision));
  }
  // jinja2 takes math.ceil or math.floor, which give ints (no negative zero), over 10 ** precision.
  const factor = Math.pow(10, precision);
  const whole = (method === 'ceil' ? Math.ceil(f * factor) : Math.floor(f * factor)) + 0;
  return makeFloat(whole / factor);
}


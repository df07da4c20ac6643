// printf-style `%` formatting and a basic str.format, as Python does them.
import { chargeChars } from './budget.js';
import { PyError, typeError } from './errors.js';
import { asFloat, truncInt } from './numbers.js';
import { floatRepr, intStr, pyRepr, pyStr } from './repr.js';
import { exponentNotation, fixedNotation, generalNotation } from './format-number.js';
import { getAttr, getItem } from './ops.js';
import { escapedFormatArg, htmlEscape } from './markup.js';
import { MISSING, Markup, PyFloat, Undefined, codePointPrefix, dictGet, isDict, isTuple, pyIntValue, pyTypeName, strLength } from './values.js';

/**
 * `%c`: the character of an int code point, or a one-character str, refused as Python refuses the rest. Passing any
 * number to String.fromCodePoint let V8's RangeError out for 1.5 or -1 (reported as a MemoryError limit).
 */
function percentChar(value: unknown): string {
  const text = value instanceof Markup ? value.text : value;
  if (typeof text === 'string' && strLength(text) === 1) return text;
  const n = pyIntValue(value);
  if (n !== undefined) {
    if (n < 0 || n >= 0x110000) throw new PyError('OverflowError', '%c arg not in range(0x110000)');
    return String.fromCodePoint(Number(n));
  }
  throw typeError('%c requires int or char');
}

/** Where zero padding goes: after a sign and a `#` prefix (`-0x` + `00ff`). */
function signAndPrefix(text: string): number {
  let at = text[0] === '-' || text[0] === '+' || text[0] === ' ' ? 1 : 0;
  const letter = text[at + 1];
  if (text[at] === '0' && letter !== undefined && 'xXob'.includes(letter)) at += 2;
  return at;
}

function pad(text: string, width: number, left: boolean, zero: boolean): string {
  if (text.length >= width) return text;
  chargeChars(width);
  if (left) return text + ' '.repeat(width - text.length);
  if (zero) {
    const at = signAndPrefix(text);
    return text.slice(0, at) + '0'.repeat(width - text.length) + text.slice(at);
  }
  return ' '.repeat(width - text.length) + text;
}

const RADIX: Record<string, number> = { d: 10, x: 16, X: 16, o: 8, b: 2 };

/** An int in base `conv`, its digits zero-padded to `minDigits` ('%.3d'), after its sign and its `#` prefix. */
function intDigits(n: number | bigint, conv: string, alt: boolean, minDigits = 0): string {
  const big = BigInt(n);
  const magnitude = big < 0n ? -big : big;
  let text = conv === 'd' ? intStr(magnitude) : magnitude.toString(RADIX[conv]);
  if (text.length < minDigits) {
    chargeChars(minDigits);
    text = '0'.repeat(minDigits - text.length) + text;
  }
  if (alt && conv !== 'd') text = `0${conv.toLowerCase()}${text}`;
  if (conv === 'X') text = text.toUpperCase();
  return big < 0n ? `-${text}` : text;
}

/** One of 'f', 'e', 'g' (either case) of a float, `alt` keeping the point. */
function floatText(conv: string, f: number, precision: number, alt: boolean): string {
  const lower = conv.toLowerCase();
  const text = lower === 'f' ? fixedNotation(f, precision, alt) : lower === 'e' ? exponentNotation(f, precision, alt) : generalNotation(f, precision, alt);
  return conv === lower ? text : text.toUpperCase();
}

/** Python's ascii(): the repr with every character past ASCII written as an escape. */
function asciiRepr(value: unknown): string {
  return pyRepr(value).replace(/[^\x00-\x7f]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
    if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
    return `\\U${code.toString(16).padStart(8, '0')}`;
  });
}

const PERCENT_CONVERSIONS = new Set(['s', 'r', 'a', 'c', 'd', 'i', 'u', 'x', 'X', 'o', 'f', 'F', 'e', 'E', 'g', 'G']);

function formatOne(conv: string, value: unknown, flags: string, width: number, precision: number | undefined, escape = false): string {
  const escaped = escape ? escapedFormatArg(value, conv) : undefined;
  if (escaped !== undefined) return formatOne('s', escaped, flags, width, precision);
  const left = flags.includes('-');
  const zero = flags.includes('0') && !left;
  const alt = flags.includes('#');
  const plus = flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  let text: string;
  switch (conv) {
    case 's':
    case 'r':
    case 'a':
      text = conv === 's' ? pyStr(value) : conv === 'r' ? pyRepr(value) : asciiRepr(value);
      if (precision !== undefined) text = codePointPrefix(text, precision);
      return pad(text, width, left, false);
    case 'd':
    case 'i':
    case 'u': {
      const n = truncInt(value);
      if (n === undefined) throw typeError(`%${conv} format: a real number is required, not ${pyTypeName(value)}`);
      text = intDigits(n, 'd', false, precision);
      break;
    }
    case 'x':
    case 'X':
    case 'o': {
      const n = pyIntValue(value);
      if (n === undefined) throw typeError(`%${conv} format: an integer is required, not ${pyTypeName(value)}`);
      text = intDigits(n, conv, alt, precision);
      break;
    }
    case 'c':
      return pad(percentChar(value), width, left, false);
    default: {
      const f = asFloat(value);
      if (f === undefined) throw typeError(`must be real number, not ${pyTypeName(value)}`);
      text = floatText(conv, f, precision ?? 6, alt);
    }
  }
  if (plus && !text.startsWith('-')) text = plus + text;
  return pad(text, width, left, zero);
}

/**
 * The arguments of `fmt % args` as CPython hands them out: a tuple's items in turn, any other value once; a
 * `%(key)` field puts the key's value in their place, once (so a field without a key after it has nothing left).
 */
class PercentArgs {
  private values: unknown;
  private count: number;
  private at: number;

  constructor(args: unknown) {
    const tuple = isTuple(args);
    this.values = args;
    this.count = tuple ? (args as unknown[]).length : -1;
    this.at = tuple ? 0 : -2;
  }

  next(): unknown {
    if (this.at >= this.count) throw typeError('not enough arguments for format string');
    const at = this.at++;
    return this.count < 0 ? this.values : (this.values as unknown[])[at];
  }

  /** The key's value is the one argument of this field (and of any field after it that has no key). */
  useKeyValue(value: unknown): void {
    this.values = value;
    this.count = -1;
    this.at = -2;
  }

  /** Arguments a tuple still holds after the last field. */
  get unused(): boolean {
    return this.at < this.count;
  }
}

/**
 * A `*` width or precision: an int (or bool) that fits the C type CPython reads it as. A Markup format wraps every
 * argument in markupsafe's escaping helper, which is no int: there `*` always refuses.
 */
function starArgument(value: unknown, cType: 'int' | 'ssize_t', escape: boolean): number {
  const n = pyIntValue(value);
  if (escape || n === undefined) throw typeError('* wants int');
  const max = cType === 'int' ? 2n ** 31n - 1n : 2n ** 63n - 1n;
  const big = BigInt(n);
  if (big > max || big < -max - 1n) throw new PyError('OverflowError', `Python int too large to convert to C ${cType}`);
  return Number(n);
}

/** Python `fmt % args`; `escape` for a Markup format, whose %s and %r fields see escaped text. */
export function percentFormat(fmt: string, args: unknown, escape = false): string {
  // CPython skips the unused-arguments check when the argument has __getitem__ (a dict, but also a list or an
  // Undefined); only then may a field name a key.
  const mapping = isDict(args) ? args : undefined;
  const subscriptable = mapping !== undefined || (Array.isArray(args) && !isTuple(args)) || args instanceof Undefined;
  const cursor = new PercentArgs(args);
  let out = '';
  let i = 0;
  while (i < fmt.length) {
    const pct = fmt.indexOf('%', i);
    if (pct === -1) {
      out += fmt.slice(i);
      break;
    }
    out += fmt.slice(i, pct);
    let p = pct + 1;
    if (fmt[p] === '%') {
      out += '%';
      i = p + 1;
      continue;
    }
    if (fmt[p] === '(') {
      const close = fmt.indexOf(')', p);
      if (close === -1) throw new PyError('ValueError', 'incomplete format key');
      if (mapping === undefined) throw typeError('format requires a mapping');
      const key = fmt.slice(p + 1, close);
      const value = dictGet(mapping, key);
      if (value === MISSING) throw new PyError('KeyError', pyRepr(key));
      cursor.useKeyValue(value);
      p = close + 1;
    }
    let flags = '';
    while ('-+ #0'.includes(fmt[p] ?? 'x')) flags += fmt[p++];
    let width = 0;
    if (fmt[p] === '*') {
      width = starArgument(cursor.next(), 'ssize_t', escape);
      // A negative `*` width left-justifies, as the `-` flag does.
      if (width < 0) {
        flags += '-';
        width = -width;
      }
      p++;
    } else while (fmt[p] !== undefined && fmt[p]! >= '0' && fmt[p]! <= '9') width = width * 10 + Number(fmt[p++]);
    let precision: number | undefined;
    if (fmt[p] === '.') {
      p++;
      if (fmt[p] === '*') {
        precision = Math.max(0, starArgument(cursor.next(), 'int', escape));
        p++;
      } else {
        precision = 0;
        while (fmt[p] !== undefined && fmt[p]! >= '0' && fmt[p]! <= '9') precision = precision * 10 + Number(fmt[p++]);
      }
    }
    while (fmt[p] === 'l' || fmt[p] === 'h' || fmt[p] === 'L') p++;
    const conv = fmt[p];
    if (conv === undefined) throw new PyError('ValueError', 'incomplete format');
    // The argument is taken before the conversion is checked: '%z' % () is short of arguments before it is unknown.
    const value = cursor.next();
    if (!PERCENT_CONVERSIONS.has(conv)) {
      const code = conv.codePointAt(0)!;
      throw new PyError('ValueError', `unsupported format character '${String.fromCodePoint(code)}' (0x${code.toString(16)}) at index ${p}`);
    }
    out += formatOne(conv, value, flags, width, precision, escape);
    i = p + 1;
  }
  if (!subscriptable && cursor.unused) throw typeError('not all arguments converted during string formatting');
  return out;
}

interface Spec {
  fill: string;
  /** Whether the fill was written, not the default space. */
  fillGiven: boolean;
  align: string;
  sign: string;
  /** `z`: a float that rounds to zero loses its minus sign. */
  noNegZero: boolean;
  alt: boolean;
  width: number;
  grouping: string;
  precision: number | undefined;
  type: string;
}

/** `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`, read as CPython's parse_internal_render_format_spec. */
function parseSpec(spec: string, numeric: boolean, typeName: string): Spec {
  let i = 0;
  let fill = ' ';
  let fillGiven = false;
  let align = '';
  if (spec.length > 1 && '<>^='.includes(spec[1]!)) {
    fill = spec[0]!;
    fillGiven = true;
    align = spec[1]!;
    i = 2;
  } else if ('<>^='.includes(spec[0]!)) {
    align = spec[0]!;
    i = 1;
  }
  let sign = '';
  if ('+- '.includes(spec[i] ?? 'x')) sign = spec[i++]!;
  const noNegZero = spec[i] === 'z';
  if (noNegZero) i++;
  const alt = spec[i] === '#';
  if (alt) i++;
  // A 0 before the width fills with zeros unless a fill was written, and pads after the sign unless aligned.
  if (!fillGiven && spec[i] === '0') {
    fill = '0';
    if (!align && numeric) align = '=';
    i++;
  }
  let width = 0;
  while (spec[i] !== undefined && spec[i]! >= '0' && spec[i]! <= '9') width = width * 10 + Number(spec[i++]);
  let grouping = '';
  if (spec[i] === ',' || spec[i] === '_') grouping = spec[i++]!;
  let precision: number | undefined;
  if (spec[i] === '.') {
    i++;
    precision = 0;
    while (spec[i] !== undefined && spec[i]! >= '0' && spec[i]! <= '9') precision = precision * 10 + Number(spec[i++]);
  }
  if (spec.length - i > 1) throw new PyError('ValueError', `Invalid format specifier '${spec}' for object of type '${typeName}'`);
  const type = spec.slice(i);
  // A str's type defaults to 's' before this check, a number's stays empty.
  const checked = type === '' && !numeric ? 's' : type;
  if (grouping !== '' && !groupable(checked, grouping)) throw new PyError('ValueError', `Cannot specify '${grouping}' with '${checked}'.`);
  return { fill, fillGiven, align, sign, noNegZero, alt, width, grouping, precision, type };
}

/** PEP 378 and 515: `,` and `_` group decimal digits; `_` also groups binary, octal and hex. */
function groupable(type: string, grouping: string): boolean {
  if (['', 'd', 'e', 'E', 'f', 'F', 'g', 'G', '%'].includes(type)) return true;
  return grouping === '_' && ['b', 'o', 'x', 'X'].includes(type);
}

function applySpec(value: unknown, specText: string): string {
  if (specText === '') return pyStr(value);
  const raw = value instanceof Markup ? value.text : value;
  const spec = parseSpec(specText, typeof raw !== 'string', pyTypeName(value));
  let text = formatSpecified(raw, spec);
  const align = spec.align || (typeof raw === 'string' ? '<' : '>');
  if (spec.grouping !== '' && spec.fill === '0' && align === '=') text = zeroPadGrouped(text, spec);
  if (text.length >= spec.width) return text;
  const { fill, width } = spec;
  chargeChars(width * fill.length);
  const room = width - text.length;
  if (align === '<') return text + fill.repeat(room);
  if (align === '^') return fill.repeat(Math.floor(room / 2)) + text + fill.repeat(room - Math.floor(room / 2));
  if (align === '=') {
    const at = signAndPrefix(text);
    return text.slice(0, at) + fill.repeat(room) + text.slice(at);
  }
  return fill.repeat(room) + text;
}

/** A float's text that is zero with a minus sign (`-0.00`, `-0e+00`, `-0.0%`): what `z` drops the sign of. */
const ROUNDED_NEGATIVE_ZERO = /^-0*\.?0*(?:[eE][+-][0-9]+)?%?$/;
const INT_TYPES = new Set(['', 'd', 'n', 'x', 'X', 'o', 'b', 'c']);
const FLOAT_TYPES = new Set(['', 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%']);

/** A value's text under a spec, before padding: Python's __format__ of str, int (bool) and float. */
function formatSpecified(value: unknown, spec: Spec): string {
  const { type, sign, alt, precision } = spec;
  if (typeof value === 'string') {
    if (type !== '' && type !== 's') throw new PyError('ValueError', `Unknown format code '${type}' for object of type 'str'`);
    if (sign !== '') throw new PyError('ValueError', `${sign === ' ' ? 'Space' : 'Sign'} not allowed in string format specifier`);
    if (spec.noNegZero) throw new PyError('ValueError', 'Negative zero coercion (z) not allowed in string format specifier');
    if (alt) throw new PyError('ValueError', 'Alternate form (#) not allowed in string format specifier');
    if (spec.align === '=') throw new PyError('ValueError', "'=' alignment not allowed in string format specifier");
    if (precision === undefined) return value;
    return codePointPrefix(value, precision);
  }
  const whole = pyIntValue(value);
  const isFloat = value instanceof PyFloat || (typeof value === 'number' && whole === undefined);
  if (whole === undefined && !isFloat) throw typeError(`unsupported format string passed to ${pyTypeName(value)}.__format__`);
  let text: string;
  if (whole !== undefined && INT_TYPES.has(type)) {
    if (precision !== undefined) throw new PyError('ValueError', 'Precision not allowed in integer format specifier');
    if (spec.noNegZero) throw new PyError('ValueError', 'Negative zero coercion (z) not allowed in integer format specifier');
    if (type === 'c') {
      if (sign !== '') throw new PyError('ValueError', "Sign not allowed with integer format specifier 'c'");
      if (alt) throw new PyError('ValueError', "Alternate form (#) not allowed with integer format specifier 'c'");
      // int.__format__ converts to a C long before the range check that '%c' makes first.
      if (typeof whole === 'bigint' && (whole >= 2n ** 63n || whole < -(2n ** 63n))) throw new PyError('OverflowError', 'Python int too large to convert to C long');
      return percentChar(whole);
    }
    text = intDigits(whole, type === '' || type === 'n' ? 'd' : type, alt);
  } else if (FLOAT_TYPES.has(type)) {
    const f = asFloat(value)!;
    if (type === '%') text = `${fixedNotation(f * 100, precision ?? 6, alt)}%`;
    else if (type === '') text = precision === undefined ? reprWithPoint(f, alt) : generalNotation(f, precision, alt, true);
    else text = floatText(type === 'n' ? 'g' : type, f, precision ?? 6, alt);
    if (spec.noNegZero && ROUNDED_NEGATIVE_ZERO.test(text)) text = text.slice(1);
  } else {
    throw new PyError('ValueError', `Unknown format code '${type}' for object of type '${pyTypeName(value)}'`);
  }
  if (spec.grouping !== '') text = groupDigits(text, spec.grouping, RADIX[type] !== undefined && type !== 'd' ? 4 : 3);
  return (sign === '+' || sign === ' ') && !text.startsWith('-') ? sign + text : text;
}

/** repr of a float; with `#` a point even before an exponent ('1.e+21'). */
function reprWithPoint(f: number, alt: boolean): string {
  const text = floatRepr(f);
  if (!alt || text.includes('.') || !Number.isFinite(f)) return text;
  const e = text.indexOf('e');
  return e === -1 ? `${text}.` : `${text.slice(0, e)}.${text.slice(e)}`;
}

/**
 * Zero padding of a grouped number is digits too, grouped with the rest ('{:017,}'.format(1234567) is
 * '0,000,001,234,567'); a group is never begun by its separator, so the text may come out one character wider.
 */
function zeroPadGrouped(text: string, spec: Spec): string {
  const at = signAndPrefix(text);
  const size = spec.grouping === '_' && ['b', 'o', 'x', 'X'].includes(spec.type) ? 4 : 3;
  const digit = size === 4 ? /[0-9a-fA-F_]/ : /[0-9,_]/;
  let end = at;
  while (end < text.length && digit.test(text[end]!)) end++;
  const room = spec.width - (text.length - (end - at));
  const digits = text.slice(at, end).split(spec.grouping).join('');
  // n digits grouped take n + floor((n - 1) / size) characters: the fewest digits that fill the room.
  const groupedLength = (n: number) => n + Math.floor((n - 1) / size);
  let count = Math.max(digits.length, room - Math.floor(room / (size + 1)));
  while (groupedLength(count) < room) count++;
  if (count === digits.length) return text;
  chargeChars(count * 2);
  return text.slice(0, at) + groupDigits(digits.padStart(count, '0'), spec.grouping, size) + text.slice(end);
}

/** Separators between groups of the integer digits: `,` or `_` every 3 digits, `_` every 4 in hex, octal and binary. */
function groupDigits(text: string, separator: string, size: number): string {
  const digit = size === 4 ? /[0-9a-fA-F]/ : /[0-9]/;
  const start = signAndPrefix(text);
  let end = start;
  while (end < text.length && digit.test(text[end]!)) end++;
  const digits = text.slice(start, end);
  let grouped = '';
  for (let i = digits.length; i > 0; i -= size) grouped = digits.slice(Math.max(0, i - size), i) + (grouped === '' ? '' : separator + grouped);
  return text.slice(0, start) + grouped + text.slice(end);
}

/** `0.attr[key]` → the first name and each `.attr` (true) or `[key]` (false) step, as Python's formatter splits it. */
function fieldPath(field: string): { first: string; rest: Array<[boolean, string | number]> } {
  let end = 0;
  while (end < field.length && field[end] !== '.' && field[end] !== '[') end++;
  const rest: Array<[boolean, string | number]> = [];
  let i = end;
  while (i < field.length) {
    if (field[i] === '.') {
      let j = i + 1;
      while (j < field.length && field[j] !== '.' && field[j] !== '[') j++;
      if (j === i + 1) throw new PyError('ValueError', 'Empty attribute in format string');
      rest.push([true, field.slice(i + 1, j)]);
      i = j;
    } else if (field[i] === '[') {
      const close = field.indexOf(']', i);
      if (close === -1) throw new PyError('ValueError', "Missing ']' in format string");
      const key = field.slice(i + 1, close);
      if (key === '') throw new PyError('ValueError', 'Empty attribute in format string');
      rest.push([false, /^[0-9]+$/.test(key) ? Number(key) : key]);
      i = close + 1;
      if (i < field.length && field[i] !== '.' && field[i] !== '[') throw new PyError('ValueError', 'Only \'.\' or \'[\' may follow \']\' in format field specifier');
    } else throw new PyError('ValueError', 'Only \'.\' or \'[\' may follow \']\' in format field specifier');
  }
  return { first: field.slice(0, end), rest };
}

/** One replacement field as CPython's format-string parser reads it (unicode_format.h parse_field). */
interface Field {
  name: string;
  /** The character after `!`, or '' when there is none. */
  conversion: string;
  spec: string;
  /** Where the text after the field starts. */
  end: number;
}

/**
 * The field that starts after the `{` at `open - 1`: its name runs to `:`, `!` or `}` (a `[key]` may hold any of
 * them), then an optional one-character conversion, then a spec that runs to the `}` matching the field's `{`, so it
 * may hold fields of its own.
 */
function parseField(fmt: string, open: number): Field {
  let i = open;
  let c = '';
  while (i < fmt.length) {
    c = fmt[i++]!;
    if (c === '{') throw new PyError('ValueError', "unexpected '{' in field name");
    if (c === '[') {
      while (i < fmt.length && fmt[i] !== ']') i++;
      continue;
    }
    if (c === '}' || c === ':' || c === '!') break;
  }
  const name = fmt.slice(open, i - 1);
  if (c !== '!' && c !== ':') {
    if (c !== '}') throw new PyError('ValueError', "expected '}' before end of string");
    return { name, conversion: '', spec: '', end: i };
  }
  let conversion = '';
  if (c === '!') {
    if (i >= fmt.length) throw new PyError('ValueError', 'end of string while looking for conversion specifier');
    conversion = fmt[i++]!;
    if (i < fmt.length) {
      const after = fmt[i++]!;
      if (after === '}') return { name, conversion, spec: '', end: i };
      if (after !== ':') throw new PyError('ValueError', "expected ':' after conversion specifier");
    }
  }
  const specStart = i;
  let depth = 1;
  while (i < fmt.length) {
    const d = fmt[i++];
    if (d === '{') depth++;
    else if (d === '}' && --depth === 0) return { name, conversion, spec: fmt.slice(specStart, i - 1), end: i };
  }
  throw new PyError('ValueError', "unmatched '{' in format spec");
}

/**
 * Where named fields are read: the call's keywords, a format_map's dict, or (a format_map of anything else) a
 * function that makes the error reading a name from it raises.
 */
type FieldNames = Record<string, unknown> | null | (() => PyError);

/** string.Formatter's automatic field numbering: the next number, or false once a field gave its own. */
interface Numbering {
  auto: number | false;
}

/**
 * str.format as jinja2's sandbox runs it (string.Formatter.vformat): fields with positional or keyword names,
 * `.attr` and `[key]` steps, conversions, and format specs that hold fields of their own, one level deep; `escape`
 * for Markup.format.
 */
export function strFormat(fmt: string, args: unknown[], kwargs: Record<string, unknown> | null, escape = false): string {
  return formatFields(fmt, args, kwargs, escape, 2, { auto: 0 });
}

/**
 * str.format_map: the names of the fields read from `mapping` (a dict's string keys); a mapping that is a function
 * makes the error that indexing the value by a name raises. Numbered fields find no arguments.
 */
export function strFormatMap(fmt: string, mapping: Record<string, unknown> | (() => PyError), escape = false): string {
  return formatFields(fmt, [], mapping, escape, 2, { auto: 0 });
}

/** string.Formatter._vformat: the text of `fmt` with its fields formatted, specs expanded at `depth - 1`. */
function formatFields(fmt: string, args: unknown[], kwargs: FieldNames, escape: boolean, depth: number, numbering: Numbering): string {
  if (depth < 0) throw new PyError('ValueError', 'Max string recursion exceeded');
  let out = '';
  let i = 0;
  while (i < fmt.length) {
    let brace = i;
    while (brace < fmt.length && fmt[brace] !== '{' && fmt[brace] !== '}') brace++;
    out += fmt.slice(i, brace);
    if (brace >= fmt.length) break;
    const c = fmt[brace]!;
    const doubled = fmt[brace + 1] === c;
    if (c === '}' && !doubled) throw new PyError('ValueError', "Single '}' encountered in format string");
    if (c === '{' && brace + 1 >= fmt.length) throw new PyError('ValueError', "Single '{' encountered in format string");
    if (doubled) {
      out += c;
      i = brace + 2;
      continue;
    }
    const field = parseField(fmt, brace + 1);
    out += formatField(field, args, kwargs, escape, depth, numbering);
    i = field.end;
  }
  return out;
}

function formatField(field: Field, args: unknown[], kwargs: FieldNames, escape: boolean, depth: number, numbering: Numbering): string {
  let name = field.name;
  // string.Formatter numbers empty names itself and tests the whole name with isdigit (`{0.real}` is not a number).
  if (name === '') {
    if (numbering.auto === false) throw new PyError('ValueError', 'cannot switch from manual field specification to automatic field numbering');
    name = String(numbering.auto++);
  } else if (/^[0-9]+$/.test(name)) {
    if (numbering.auto !== false && numbering.auto > 0) throw new PyError('ValueError', 'cannot switch from manual field specification to automatic field numbering');
    numbering.auto = false;
  }
  const path = fieldPath(name);
  if (path.first === '' && path.rest.length > 0) throw new PyError('KeyError', "''");
  let value: unknown;
  if (/^[0-9]+$/.test(path.first)) {
    const index = Number(path.first);
    if (index >= args.length) throw new PyError('IndexError', 'tuple index out of range');
    value = args[index];
  } else {
    if (typeof kwargs === 'function') throw kwargs();
    if (!kwargs || !(path.first in kwargs)) throw new PyError('KeyError', pyRepr(path.first));
    value = kwargs[path.first];
  }
  // The sandbox's formatter reads `.attr` and `[key]` through its own getattr / getitem.
  for (const [isAttr, key] of path.rest) value = isAttr ? getAttr(value, key as string) : getItem(value, key);
  if (field.conversion === 'r') value = pyRepr(value);
  else if (field.conversion === 's') value = pyStr(value);
  else if (field.conversion === 'a') value = asciiRepr(value);
  else if (field.conversion !== '') throw new PyError('ValueError', `Unknown conversion specifier ${field.conversion}`);
  const spec = formatFields(field.spec, args, kwargs, escape, depth - 1, numbering);
  if (value instanceof Undefined && spec !== '') throw typeError('unsupported format string passed to Undefined.__format__');
  const formatted = applySpec(value, spec);
  return escape && !(value instanceof Markup) ? htmlEscape(formatted) : formatted;
}

export { floatRepr };

// printf-style `%` formatting and a basic str.format, as Python does them.
import { chargeChars } from './budget.js';
import { PyError, typeError } from './errors.js';
import { asFloat, truncInt } from './numbers.js';
import { floatRepr, intStr, pyRepr, pyStr } from './repr.js';
import { exponentNotation, fixedNotation, generalNotation } from './format-number.js';
import { getAttr, getItem } from './ops.js';
import { escapedFormatArg, htmlEscape } from './markup.js';
import { MISSING, Markup, PyFloat, Undefined, dictGet, hasSurrogates, isDict, isTuple, pyTypeName, strLength } from './values.js';

/**
 * `%c`: the character of an int code point, or a one-character str, refused as Python refuses the rest. Passing any
 * number to String.fromCodePoint let V8's RangeError out for 1.5 or -1 (reported as a MemoryError limit).
 */
function percentChar(value: unknown): string {
  const text = value instanceof Markup ? value.text : value;
  if (typeof text === 'string' && strLength(text) === 1) return text;
  const n = typeof value === 'boolean' ? Number(value) : value;
  if ((typeof n === 'number' && Number.isInteger(n)) || typeof n === 'bigint') {
    if (n < 0 || n >= 0x110000) throw new PyError('OverflowError', '%c arg not in range(0x110000)');
    return String.fromCodePoint(Number(n));
  }
  throw typeError('%c requires int or char');
}

/** Where zero padding goes: after a sign and a `#` prefix (`-0x` + `00ff`). */
function signAndPrefix(text: string): number {
  let at = text[0] === '-' || text[0] === '+' || text[0] === ' ' ? 1 : 0;
  if (text[at] === '0' && 'xXob'.includes(text[at + 1] ?? '')) at += 2;
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

function wholeNumber(value: unknown): number | bigint | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return value;
  return undefined;
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
      if (precision !== undefined) text = text.slice(0, precision);
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
      const n = wholeNumber(value);
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

/** Python `fmt % args`; `escape` for a Markup format, whose %s and %r fields see escaped text. */
export function percentFormat(fmt: string, args: unknown, escape = false): string {
  const positional = isTuple(args) ? (args as unknown[]) : [args];
  const mapping = isDict(args) ? args : undefined;
  let next = 0;
  let out = '';
  let i = 0;
  let usedMapping = false;
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
    let key: string | undefined;
    if (fmt[p] === '(') {
      const close = fmt.indexOf(')', p);
      if (close === -1) throw new PyError('ValueError', 'incomplete format key');
      key = fmt.slice(p + 1, close);
      p = close + 1;
    }
    let flags = '';
    while ('-+ #0'.includes(fmt[p] ?? 'x')) flags += fmt[p++];
    let width = 0;
    if (fmt[p] === '*') {
      width = Number(positional[next++]);
      p++;
    } else while (fmt[p] !== undefined && fmt[p]! >= '0' && fmt[p]! <= '9') width = width * 10 + Number(fmt[p++]);
    let precision: number | undefined;
    if (fmt[p] === '.') {
      p++;
      precision = 0;
      while (fmt[p] !== undefined && fmt[p]! >= '0' && fmt[p]! <= '9') precision = precision * 10 + Number(fmt[p++]);
    }
    while (fmt[p] === 'l' || fmt[p] === 'h' || fmt[p] === 'L') p++;
    const conv = fmt[p];
    if (conv === undefined) throw new PyError('ValueError', 'incomplete format');
    if (!PERCENT_CONVERSIONS.has(conv)) {
      const code = conv.codePointAt(0)!;
      throw new PyError('ValueError', `unsupported format character '${String.fromCodePoint(code)}' (0x${code.toString(16)}) at index ${p}`);
    }
    let value: unknown;
    if (key !== undefined) {
      if (mapping === undefined) throw typeError('format requires a mapping');
      value = dictGet(mapping, key);
      if (value === MISSING) throw new PyError('KeyError', pyRepr(key));
      usedMapping = true;
    } else {
      if (next >= positional.length) throw typeError('not enough arguments for format string');
      value = positional[next++];
    }
    out += formatOne(conv, value, flags, width, precision, escape);
    i = p + 1;
  }
  if (!usedMapping && mapping === undefined && next < positional.length) {
    throw typeError('not all arguments converted during string formatting');
  }
  return out;
}

function applySpec(value: unknown, spec: string): string {
  if (spec === '') return pyStr(value);
  // [[fill]align][sign][#][0][width][,][.precision][type]
  let i = 0;
  let fill = ' ';
  let align = '';
  if (spec.length > 1 && '<>^='.includes(spec[1]!)) {
    fill = spec[0]!;
    align = spec[1]!;
    i = 2;
  } else if ('<>^='.includes(spec[0]!)) {
    align = spec[0]!;
    i = 1;
  }
  let sign = '';
  if ('+- '.includes(spec[i] ?? 'x')) sign = spec[i++]!;
  const alt = spec[i] === '#';
  if (alt) i++;
  if (spec[i] === '0') {
    if (!align) {
      fill = '0';
      align = '=';
    }
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
  const type = spec.slice(i);
  const text = specText(value instanceof Markup ? value.text : value, type, sign === '-' ? '' : sign, alt, precision, grouping);
  if (!align) align = typeof value === 'string' || value instanceof Markup ? '<' : '>';
  if (text.length >= width) return text;
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

const INT_TYPES = new Set(['', 'd', 'n', 'x', 'X', 'o', 'b', 'c']);
const FLOAT_TYPES = new Set(['', 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%']);

/** A value's text under a format spec's type, sign, `#`, precision and grouping: Python's __format__ of str, int, float. */
function specText(value: unknown, type: string, sign: string, alt: boolean, precision: number | undefined, grouping: string): string {
  if (typeof value === 'string') {
    if (type !== '' && type !== 's') throw new PyError('ValueError', `Unknown format code '${type}' for object of type 'str'`);
    if (sign !== '') throw new PyError('ValueError', 'Sign not allowed in string format specifier');
    if (precision === undefined) return value;
    return hasSurrogates(value) ? Array.from(value).slice(0, precision).join('') : value.slice(0, precision);
  }
  const whole = wholeNumber(value);
  const isFloat = value instanceof PyFloat || (typeof value === 'number' && whole === undefined);
  if (whole === undefined && !isFloat) throw typeError(`unsupported format string passed to ${pyTypeName(value)}.__format__`);
  let text: string;
  if (whole !== undefined && INT_TYPES.has(type)) {
    if (precision !== undefined) throw new PyError('ValueError', 'Precision not allowed in integer format specifier');
    if (type === 'c') {
      if (sign !== '') throw new PyError('ValueError', "Sign not allowed with integer format specifier 'c'");
      return percentChar(whole);
    }
    text = intDigits(whole, type === '' || type === 'n' ? 'd' : type, alt);
  } else if (FLOAT_TYPES.has(type)) {
    const f = asFloat(value)!;
    if (type === '%') text = `${fixedNotation(f * 100, precision ?? 6, alt)}%`;
    else if (type === '') text = precision === undefined ? floatRepr(f) : generalNotation(f, precision, alt, true);
    else text = floatText(type === 'n' ? 'g' : type, f, precision ?? 6, alt);
  } else {
    throw new PyError('ValueError', `Unknown format code '${type}' for object of type '${whole === undefined ? 'float' : 'int'}'`);
  }
  if (grouping) text = groupDigits(text, grouping, RADIX[type] !== undefined && type !== 'd' ? 4 : 3);
  return sign !== '' && !text.startsWith('-') ? sign + text : text;
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

/** str.format with positional/keyword fields, conversions and basic format specs; `escape` for Markup.format. */
export function strFormat(fmt: string, args: unknown[], kwargs: Record<string, unknown> | null, escape = false): string {
  let out = '';
  let auto = 0;
  let numbering: 'auto' | 'manual' | '' = '';
  let i = 0;
  while (i < fmt.length) {
    const c = fmt[i]!;
    if (c === '{') {
      if (fmt[i + 1] === '{') {
        out += '{';
        i += 2;
        continue;
      }
      const close = fmt.indexOf('}', i);
      if (close === -1) throw new PyError('ValueError', "Single '{' encountered in format string");
      const field = fmt.slice(i + 1, close);
      const colon = field.indexOf(':');
      let head = colon === -1 ? field : field.slice(0, colon);
      const spec = colon === -1 ? '' : field.slice(colon + 1);
      let conversion = '';
      const bang = head.indexOf('!');
      if (bang !== -1) {
        conversion = head.slice(bang + 1);
        head = head.slice(0, bang);
      }
      const path = fieldPath(head);
      head = path.first;
      let value: unknown;
      if (head === '' && path.rest.length > 0) throw new PyError('KeyError', "''");
      if (head === '' ? numbering === 'manual' : /^[0-9]+$/.test(head) && numbering === 'auto') {
        // jinja2's sandbox formats with string.Formatter, which uses this one message both ways.
        throw new PyError('ValueError', 'cannot switch from manual field specification to automatic field numbering');
      }
      if (head === '') numbering = 'auto';
      else if (/^[0-9]+$/.test(head)) numbering = 'manual';
      if (head === '') {
        if (auto >= args.length) throw new PyError('IndexError', `Replacement index ${auto} out of range for positional args tuple`);
        value = args[auto++];
      } else if (/^[0-9]+$/.test(head)) {
        const idx = Number(head);
        if (idx >= args.length) throw new PyError('IndexError', `Replacement index ${idx} out of range for positional args tuple`);
        value = args[idx];
      } else {
        if (!kwargs || !(head in kwargs)) throw new PyError('KeyError', pyRepr(head));
        value = kwargs[head];
      }
      // The sandbox's formatter reads `.attr` and `[key]` through its own getattr / getitem.
      for (const [isAttr, key] of path.rest) value = isAttr ? getAttr(value, key as string) : getItem(value, key);
      if (value instanceof Undefined && spec !== '' && conversion === '') throw typeError('unsupported format string passed to Undefined.__format__');
      if (conversion === 'r') value = pyRepr(value);
      else if (conversion === 's') value = pyStr(value);
      const formatted = applySpec(value, spec);
      out += escape && !(value instanceof Markup) ? htmlEscape(formatted) : formatted;
      i = close + 1;
    } else if (c === '}') {
      if (fmt[i + 1] !== '}') throw new PyError('ValueError', "Single '}' encountered in format string");
      out += '}';
      i += 2;
    } else {
      const next = Math.min(...[fmt.indexOf('{', i), fmt.indexOf('}', i)].map((x) => (x === -1 ? fmt.length : x)));
      out += fmt.slice(i, next);
      i = next;
    }
  }
  return out;
}

export { floatRepr };

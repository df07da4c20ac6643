// printf-style `%` formatting and a basic str.format, as Python does them.
import { chargeChars } from './budget.js';
import { PyError, typeError } from './errors.js';
import { asFloat, truncInt } from './numbers.js';
import { floatRepr, intStr, pyRepr, pyStr } from './repr.js';
import { getAttr, getItem } from './ops.js';
import { escapedFormatArg, htmlEscape } from './markup.js';
import { MISSING, Markup, Undefined, dictGet, isDict, isTuple, pyTypeName, strLength } from './values.js';

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

function pad(text: string, width: number, left: boolean, zero: boolean): string {
  if (text.length >= width) return text;
  chargeChars(width);
  if (left) return text + ' '.repeat(width - text.length);
  if (zero) {
    const sign = text[0] === '-' || text[0] === '+' ? text[0] : '';
    return sign + '0'.repeat(width - text.length) + text.slice(sign.length);
  }
  return ' '.repeat(width - text.length) + text;
}

function fixed(value: number, precision: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  return value.toFixed(precision);
}

function expo(value: number, precision: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  const s = value.toExponential(precision);
  const [m, e] = s.split('e') as [string, string];
  const exp = Number(e);
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function general(value: number, precision: number, alt: boolean): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  const p = precision === 0 ? 1 : precision;
  if (value === 0) return alt ? '0.' + '0'.repeat(p - 1) : '0';
  const exp = Math.floor(Math.log10(Math.abs(Number(value.toExponential(p - 1)))));
  let s = exp < -4 || exp >= p ? expo(value, p - 1) : value.toFixed(Math.max(0, p - 1 - exp));
  if (!alt && s.includes('.')) {
    const [m, e] = s.includes('e') ? (s.split('e') as [string, string]) : [s, undefined];
    const trimmed = m.replace(/0+$/, '').replace(/\.$/, '');
    s = e === undefined ? trimmed : `${trimmed}e${e}`;
  }
  return s;
}

function formatOne(conv: string, value: unknown, flags: string, width: number, precision: number | undefined, escape = false): string {
  const escaped = escape ? escapedFormatArg(value, conv) : undefined;
  if (escaped !== undefined) return formatOne('s', escaped, flags, width, precision);
  const left = flags.includes('-');
  const zero = flags.includes('0') && !left;
  const plus = flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  let text: string;
  switch (conv) {
    case 's':
      text = pyStr(value);
      if (precision !== undefined) text = text.slice(0, precision);
      return pad(text, width, left, false);
    case 'r':
    case 'a':
      text = pyRepr(value);
      if (precision !== undefined) text = text.slice(0, precision);
      return pad(text, width, left, false);
    case 'd':
    case 'i':
    case 'u': {
      const n = truncInt(value);
      if (n === undefined) throw typeError(`%${conv} format: a real number is required, not ${pyTypeName(value)}`);
      text = intStr(n);
      break;
    }
    case 'x':
    case 'X':
    case 'o': {
      const n = typeof value === 'boolean' ? (value ? 1 : 0) : value;
      if (typeof n !== 'bigint' && !(typeof n === 'number' && Number.isInteger(n))) {
        throw typeError(`%${conv} format: an integer is required, not ${pyTypeName(value)}`);
      }
      const big = BigInt(n);
      text = (big < 0n ? -big : big).toString(conv === 'o' ? 8 : 16);
      if (flags.includes('#')) text = (conv === 'o' ? '0o' : '0x') + text;
      if (conv === 'X') text = text.toUpperCase();
      if (big < 0n) text = '-' + text;
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      const f = asFloat(value);
      if (f === undefined) throw typeError(`must be real number, not ${pyTypeName(value)}`);
      const p = precision ?? 6;
      const lower = conv.toLowerCase();
      text = lower === 'f' ? fixed(f, p) : lower === 'e' ? expo(f, p) : general(f, p, flags.includes('#'));
      if (conv !== lower) text = text.toUpperCase();
      break;
    }
    case 'c':
      return pad(percentChar(value), width, left, false);
    default:
      throw new PyError('ValueError', `unsupported format character '${conv}'`);
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
  if (spec[i] === '#') i++;
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
  let text: string;
  if (type === '' || type === 's') {
    if (typeof value === 'string' || type === 's') text = pyStr(value);
    else if (precision !== undefined) text = general(asFloat(value) ?? 0, precision, false);
    else text = pyStr(value);
    if (precision !== undefined && typeof value === 'string') text = text.slice(0, precision);
    if (!align) align = typeof value === 'string' ? '<' : '>';
  } else {
    text = formatOne(type === 'n' ? 'g' : type === '%' ? 'f' : type, type === '%' ? (asFloat(value) ?? 0) * 100 : value, sign === '+' ? '+' : sign === ' ' ? ' ' : '', 0, precision);
    if (type === '%') text += '%';
    if (!align) align = '>';
  }
  if (grouping) {
    const m = /^([+-]?)(\d+)(.*)$/s.exec(text);
    if (m) text = m[1]! + m[2]!.replace(/\B(?=(\d{3})+$)/g, grouping) + m[3]!;
  }
  if (text.length >= width) return text;
  chargeChars(width * fill.length);
  const room = width - text.length;
  if (align === '<') return text + fill.repeat(room);
  if (align === '^') return fill.repeat(Math.floor(room / 2)) + text + fill.repeat(room - Math.floor(room / 2));
  if (align === '=' && (text[0] === '-' || text[0] === '+')) return text[0] + fill.repeat(room) + text.slice(1);
  return fill.repeat(room) + text;
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

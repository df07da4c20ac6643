import { pyStrip as strStrip } from '../jinja/methods.js';
import { strRepr as pyRepr } from '../jinja/repr.js';
import { isPlainObject as isDict } from '../util/guards.js';
import { RegionError } from './errors.js';
import { isDigitCp } from './regex/unicode.js';

// The Python semantics the Jinja engine already implements are shared, not rewritten: `repr()` of a str (error
// messages quote input as Python does) and JSON objects as `dict`.
export { isDict, pyRepr };

/** Python `str.strip()` (no argument): removes `str.isspace()` characters, which is not JS `trim()`'s set. */
export function pyStrip(text: string): string {
  return strStrip(text, null, true, true);
}

/** Python's `type(value).__name__` for JSON-shaped values. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** Python truthiness of a JSON-shaped option value (`content_args.get('strip', True)`). */
export function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isDict(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** CPython's default `sys.get_int_max_str_digits()`. */
const MAX_INT_DIGITS = 4300;

/** The decimal value of a Unicode Nd code point (digit runs are consecutive blocks of ten, starting at zero). */
function digitValue(cp: number): number {
  if (cp <= 0x39) return cp - 0x30;
  let start = cp;
  while (start > 0 && isDigitCp(start - 1) && cp - start < 60) start--;
  return (cp - start) % 10;
}

/** Digits with single underscores between them, as Python's int()/float() accept; ASCII result or null. */
function digitRun(text: string): string | null {
  let out = '';
  let lastUnderscore = true;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '_') {
      if (lastUnderscore) return null;
      lastUnderscore = true;
      continue;
    }
    if (!isDigitCp(cp)) return null;
    out += String(digitValue(cp));
    lastUnderscore = false;
  }
  return out === '' || lastUnderscore ? null : out;
}

/** Python `int(text)` (base 10); throws RegionError('ValueError') with Python's message. */
export function pyInt(text: string): number {
  const body = pyStrip(text);
  const sign = body.startsWith('-') ? -1 : 1;
  const digits = digitRun(body.replace(/^[+-]/, ''));
  if (digits === null) throw new RegionError('ValueError', `invalid literal for int() with base 10: ${pyRepr(text)}`);
  if (digits.length > MAX_INT_DIGITS) {
    throw new RegionError('ValueError', `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion: value has ${digits.length} digits`);
  }
  const value = sign * Number(digits);
  return Object.is(value, -0) ? 0 : value;
}

/** Python `float(text)`; throws RegionError('ValueError') with Python's message. */
export function pyFloat(text: string): number {
  const body = pyStrip(text);
  const sign = body.startsWith('-') ? -1 : 1;
  const unsigned = body.replace(/^[+-]/, '');
  const lower = unsigned.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return sign * Infinity;
  if (lower === 'nan') return NaN;
  const m = /^([^.eE]*)(?:\.([^.eE]*))?(?:[eE]([+-]?)([^.eE+-]+))?$/u.exec(unsigned);
  const fail = (): never => { throw new RegionError('ValueError', `could not convert string to float: ${pyRepr(text)}`); };
  if (!m) return fail();
  const intPart = m[1] === '' ? '' : digitRun(m[1]!);
  const fracPart = m[2] === undefined || m[2] === '' ? '' : digitRun(m[2]);
  if (intPart === null || fracPart === null || (intPart === '' && fracPart === '')) return fail();
  let exp = '';
  if (m[4] !== undefined) {
    const e = digitRun(m[4]);
    if (e === null) return fail();
    exp = `e${m[3] ?? ''}${e}`;
  }
  return sign * Number(`${intPart || '0'}.${fracPart || '0'}${exp}`);
}

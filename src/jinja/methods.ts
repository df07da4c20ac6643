// The str / list / dict methods the sandbox exposes (ImmutableSandboxedEnvironment: no mutating methods).
import { charged, chargeChars, chargeItems, scanChars, scanItems } from './budget.js';
import { PyError, typeError } from './errors.js';
import { strFormat, strFormatMap } from './format.js';
import { pyCapitalize, pyCasefold, pyIsLower, pyIsTitle, pyIsUpper, pySwapcase, pyTitle } from './case.js';
import { Markup, markupMethod, unmark } from './markup.js';
import { pyEq } from './ops.js';
import {
  Callable, MISSING, PyGenerator, Undefined, codePoints, dictEntries, dictGet, dictKeys, hasSurrogates, isDict, isPySpace, isTuple, makeTuple,
  pyIntValue, pyTypeName, strLength, buildDict,
} from './values.js';
import { isPrintable, pyRepr } from './repr.js';
import { methodArity } from './method-arity.js';

type Kwargs = Record<string, unknown> | null;
type Method = (self: never, args: unknown[], kwargs: Kwargs) => unknown;

function arg(args: unknown[], kwargs: Kwargs, index: number, name: string, fallback: unknown): unknown {
  if (index < args.length) return args[index];
  if (kwargs && name in kwargs) return kwargs[name];
  return fallback;
}

function optInt(value: unknown, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  throw typeError(`'${pyTypeName(value)}' object cannot be interpreted as an integer`);
}

function requireStr(value: unknown, what: string): string {
  if (typeof value !== 'string') throw typeError(`${what} arg must be None or str`);
  return value;
}

// ---- whitespace / char-set stripping ----

export function pyStrip(s: string, chars: unknown, left: boolean, right: boolean): string {
  let start = 0;
  let end = s.length;
  if (chars === null || chars === undefined) {
    if (left) while (start < end && isPySpace(s.charCodeAt(start))) start++;
    if (right) while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
    return s.slice(start, end);
  }
  const set = new Set(codePoints(requireStr(chars, 'strip')));
  const cps = codePoints(s);
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && set.has(cps[a]!)) a++;
  if (right) while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

function splitWhitespace(s: string, maxsplit: number): string[] {
  const out: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && isPySpace(s.charCodeAt(i))) i++;
    if (i >= n) break;
    if (maxsplit >= 0 && out.length === maxsplit) {
      out.push(s.slice(i)); // Python keeps the remainder's trailing whitespace
      return out;
    }
    const start = i;
    while (i < n && !isPySpace(s.charCodeAt(i))) i++;
    out.push(s.slice(start, i));
  }
  return out;
}

function rsplitWhitespace(s: string, maxsplit: number): string[] {
  const out: string[] = [];
  let i = s.length;
  while (i > 0) {
    while (i > 0 && isPySpace(s.charCodeAt(i - 1))) i--;
    if (i <= 0) break;
    if (maxsplit >= 0 && out.length === maxsplit) {
      out.push(s.slice(0, i));
      break;
    }
    const end = i;
    while (i > 0 && !isPySpace(s.charCodeAt(i - 1))) i--;
    out.push(s.slice(i, end));
  }
  return out.reverse();
}

export function pySplit(s: string, sepArg: unknown, maxArg: unknown): string[] {
  const maxsplit = optInt(maxArg, -1);
  if (sepArg === null || sepArg === undefined) return splitWhitespace(s, maxsplit);
  const sep = requireStr(sepArg, 'sep');
  if (sep === '') throw new PyError('ValueError', 'empty separator');
  if (maxsplit < 0) return s.split(sep);
  const out: string[] = [];
  let start = 0;
  while (out.length < maxsplit) {
    const at = s.indexOf(sep, start);
    if (at === -1) break;
    out.push(s.slice(start, at));
    start = at + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

function pyRsplit(s: string, sepArg: unknown, maxArg: unknown): string[] {
  const maxsplit = optInt(maxArg, -1);
  if (sepArg === null || sepArg === undefined) return rsplitWhitespace(s, maxsplit);
  const sep = requireStr(sepArg, 'sep');
  if (sep === '') throw new PyError('ValueError', 'empty separator');
  if (maxsplit < 0) return s.split(sep);
  const out: string[] = [];
  let end = s.length;
  while (out.length < maxsplit) {
    const at = end - sep.length < 0 ? -1 : s.lastIndexOf(sep, end - sep.length);
    if (at === -1) break;
    out.push(s.slice(at + sep.length, end));
    end = at;
  }
  out.push(s.slice(0, end));
  return out.reverse();
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 11 || c === 12 || c === 0x1c || c === 0x1d || c === 0x1e || c === 0x85 || c === 0x2028 || c === 0x2029;
}

export function pySplitlines(s: string, keepends: boolean): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (isLineBreak(c)) {
      let end = i + 1;
      if (c === 13 && s.charCodeAt(i + 1) === 10) end++;
      out.push(s.slice(start, keepends ? end : i));
      start = i = end;
    } else i++;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

/** Code point index range [start, end) of a str method's optional start/end args, as JS string offsets. */
function window(s: string, startArg: unknown, endArg: unknown): [string, number] {
  if ((startArg === null || startArg === undefined) && (endArg === null || endArg === undefined)) return [s, 0];
  const cps = hasSurrogates(s) ? codePoints(s) : null;
  const len = cps ? cps.length : s.length;
  let a = optInt(startArg, 0);
  let b = optInt(endArg, len);
  if (a < 0) a = Math.max(0, a + len);
  if (b < 0) b = Math.max(0, b + len);
  // A start past the end is no window at all (Python's find('', 5) on 'abc' is -1), not an empty one at the end.
  b = Math.min(b, len);
  if (b < a) return ['', -1];
  return cps ? [cps.slice(a, b).join(''), a] : [s.slice(a, b), a];
}

function cpIndex(s: string, unitIndex: number): number {
  return unitIndex < 0 || !hasSurrogates(s) ? unitIndex : strLength(s.slice(0, unitIndex));
}

function find(s: string, args: unknown[], reverse: boolean): number {
  const sub = requireStr(args[0], 'find');
  const [part, offset] = window(s, args[1], args[2]);
  if (offset < 0) return -1;
  const at = reverse ? part.lastIndexOf(sub) : part.indexOf(sub);
  return at === -1 ? -1 : cpIndex(part, at) + offset;
}

function affix(s: string, args: unknown[], ends: boolean): boolean {
  const [part, offset] = window(s, args[1], args[2]);
  if (offset < 0) return false;
  const test = (p: unknown): boolean => {
    if (typeof p !== 'string') {
      throw typeError(`${ends ? 'endswith' : 'startswith'} first arg must be str or a tuple of str, not ${pyTypeName(p)}`);
    }
    return ends ? part.endsWith(p) : part.startsWith(p);
  };
  const prefix = args[0];
  if (Array.isArray(prefix) && isTuple(prefix)) return prefix.some(test);
  return test(prefix);
}

function countSub(s: string, args: unknown[]): number {
  const sub = requireStr(args[0], 'count');
  const [part, offset] = window(s, args[1], args[2]);
  if (offset < 0) return 0;
  if (sub === '') return strLength(part) + 1;
  let n = 0;
  for (let at = part.indexOf(sub); at !== -1; at = part.indexOf(sub, at + sub.length)) n++;
  return n;
}

function replace(s: string, args: unknown[], kwargs: Kwargs): string {
  const old = requireStr(args[0], 'replace');
  const by = requireStr(args[1], 'replace');
  let count = optInt(arg(args, kwargs, 2, 'count', -1), -1);
  chargeChars(replacedLength(s, old, by, count));
  if (count < 0) return old === '' ? codePoints(s).reduce((acc, ch) => acc + ch + by, by) : s.split(old).join(by);
  if (old === '') {
    const cps = codePoints(s);
    let out = '';
    for (let i = 0; i < cps.length; i++) out += (count-- > 0 ? by : '') + cps[i];
    return out + (count > 0 ? by : '');
  }
  let out = '';
  let start = 0;
  while (count-- > 0) {
    const at = s.indexOf(old, start);
    if (at === -1) break;
    out += s.slice(start, at) + by;
    start = at + old.length;
  }
  return out + s.slice(start);
}

/** The length str.replace will produce, found before it allocates anything. */
function replacedLength(s: string, old: string, by: string, count: number): number {
  if (by.length <= old.length) return s.length;
  let hits = 0;
  if (old === '') hits = strLength(s) + 1;
  else for (let at = s.indexOf(old); at !== -1; at = s.indexOf(old, at + old.length)) hits++;
  if (count >= 0) hits = Math.min(hits, count);
  return s.length + hits * (by.length - old.length);
}

function justify(s: string, args: unknown[], how: 'l' | 'r' | 'c'): string {
  const width = optInt(args[0], 0);
  const fill = args[1] === undefined ? ' ' : requireStr(args[1], 'fill');
  if (strLength(fill) !== 1) throw typeError('The fill character must be exactly one character long');
  const len = strLength(s);
  if (width <= len) return s;
  chargeChars(width * fill.length);
  const marg = width - len;
  if (how === 'l') return s + fill.repeat(marg);
  if (how === 'r') return fill.repeat(marg) + s;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return fill.repeat(left) + s + fill.repeat(marg - left);
}

function every(s: string, test: (ch: string) => boolean): boolean {
  if (s === '') return false;
  for (const ch of s) if (!test(ch)) return false;
  return true;
}

// Built on first use: Unicode property classes take V8 ~0.05 ms each to build, which every CLI start paid at load.
let unicodeClasses: { alpha: RegExp; decimal: RegExp; numeric: RegExp; identifier: RegExp } | undefined;
const unicode = () =>
  (unicodeClasses ??= { alpha: /^\p{L}$/u, decimal: /^\p{Nd}$/u, numeric: /^\p{N}$/u, identifier: /^[\p{XID_Start}_]\p{XID_Continue}*$/u });

/** What `obj[key]` says of a value that cannot be indexed by a string (Python's TypeError for each). */
function notSubscriptableByName(obj: unknown): PyError {
  if (Array.isArray(obj)) return typeError(`${isTuple(obj) ? 'tuple' : 'list'} indices must be integers or slices, not str`);
  if (typeof obj === 'string') return typeError("string indices must be integers, not 'str'");
  return typeError(`'${pyTypeName(obj)}' object is not subscriptable`);
}

/** format_map's one mapping: a dict's string keys name its fields; any other value fails at the first name it is asked. */
function formatMapArgument(args: unknown[], kwargs: Kwargs): Record<string, unknown> | (() => PyError) {
  if (kwargs !== null) throw typeError('format_map() takes no keyword arguments');
  if (args.length !== 1) throw typeError(`format_map() takes exactly one argument (${args.length} given)`);
  const mapping = args[0];
  if (!isDict(mapping)) return () => notSubscriptableByName(mapping);
  const named: Record<string, unknown> = Object.create(null);
  for (const [key, value] of dictEntries(mapping)) if (typeof key === 'string') named[key] = value;
  return named;
}

/**
 * str.translate: each character looked up by its code point in a dict (or a list or str, by index); a missing entry
 * keeps it, None deletes it, an int or a str replaces it.
 */
function translate(s: string, table: unknown): string {
  const indexed = Array.isArray(table) ? table : typeof table === 'string' ? codePoints(table) : undefined;
  const dict = isDict(table) ? table : undefined;
  if (indexed === undefined && dict === undefined) throw typeError(`'${pyTypeName(table)}' object is not subscriptable`);
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    const mapped = indexed !== undefined ? (code < indexed.length ? indexed[code] : MISSING) : dictGet(dict!, code);
    if (mapped === MISSING) out += ch;
    else if (mapped === null) continue;
    else if (typeof mapped === 'string' || mapped instanceof Markup) {
      const text = typeof mapped === 'string' ? mapped : mapped.text;
      chargeChars(text.length);
      out += text;
    } else {
      const n = pyIntValue(mapped);
      if (n === undefined) throw typeError('character mapping must return integer, None or str');
      if (n < 0 || n > 0x10ffff) throw new PyError('ValueError', 'character mapping must be in range(0x110000)');
      out += String.fromCodePoint(Number(n));
    }
  }
  return out;
}

function joinStr(sep: string, items: unknown): string {
  if (items instanceof Undefined) return '';
  const list = Array.isArray(items) ? items.slice() : items instanceof PyGenerator ? items.drain() : typeof items === 'string' ? codePoints(items) : isDict(items) ? dictKeys(items) : undefined;
  if (list === undefined) throw typeError('can only join an iterable');
  let length = sep.length * Math.max(0, list.length - 1);
  for (let i = 0; i < list.length; i++) {
    const item = unmark(list[i]);
    list[i] = item;
    if (typeof item !== 'string') throw typeError(`sequence item ${i}: expected str instance, ${pyTypeName(item)} found`);
    length += item.length;
  }
  chargeChars(length);
  return (list as string[]).join(sep);
}

const STR_METHODS: Record<string, (s: string, args: unknown[], kwargs: Kwargs) => unknown> = {
  strip: (s, a) => pyStrip(s, a[0], true, true),
  lstrip: (s, a) => pyStrip(s, a[0], true, false),
  rstrip: (s, a) => pyStrip(s, a[0], false, true),
  split: (s, a, k) => pySplit(s, arg(a, k, 0, 'sep', null), arg(a, k, 1, 'maxsplit', -1)),
  rsplit: (s, a, k) => pyRsplit(s, arg(a, k, 0, 'sep', null), arg(a, k, 1, 'maxsplit', -1)),
  splitlines: (s, a, k) => pySplitlines(s, Boolean(arg(a, k, 0, 'keepends', false))),
  startswith: (s, a) => affix(s, a, false),
  endswith: (s, a) => affix(s, a, true),
  replace: (s, a, k) => replace(s, a, k),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  casefold: (s) => pyCasefold(s),
  swapcase: (s) => pySwapcase(s),
  title: (s) => pyTitle(s),
  capitalize: (s) => pyCapitalize(s),
  find: (s, a) => find(s, a, false),
  rfind: (s, a) => find(s, a, true),
  index: (s, a) => {
    const r = find(s, a, false);
    if (r === -1) throw new PyError('ValueError', 'substring not found');
    return r;
  },
  rindex: (s, a) => {
    const r = find(s, a, true);
    if (r === -1) throw new PyError('ValueError', 'substring not found');
    return r;
  },
  count: (s, a) => countSub(s, a),
  join: (s, a) => joinStr(s, a[0]),
  format: (s, a, k) => charged(strFormat(s, a, k)),
  format_map: (s, a, k) => charged(strFormatMap(s, formatMapArgument(a, k))),
  translate: (s, a) => translate(s, a[0]),
  center: (s, a) => justify(s, a, 'c'),
  ljust: (s, a) => justify(s, a, 'l'),
  rjust: (s, a) => justify(s, a, 'r'),
  zfill: (s, a) => {
    const width = optInt(a[0], 0);
    const len = strLength(s);
    if (width <= len) return s;
    chargeChars(width);
    const sign = s[0] === '-' || s[0] === '+' ? s[0] : '';
    return sign + '0'.repeat(width - len) + s.slice(sign.length);
  },
  partition: (s, a) => {
    const sep = requireStr(a[0], 'partition');
    const at = s.indexOf(sep);
    return at === -1 ? makeTuple([s, '', '']) : makeTuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
  },
  rpartition: (s, a) => {
    const sep = requireStr(a[0], 'rpartition');
    const at = s.lastIndexOf(sep);
    return at === -1 ? makeTuple(['', '', s]) : makeTuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
  },
  removeprefix: (s, a) => {
    const p = requireStr(a[0], 'removeprefix');
    return p && s.startsWith(p) ? s.slice(p.length) : s;
  },
  removesuffix: (s, a) => {
    const p = requireStr(a[0], 'removesuffix');
    return p && s.endsWith(p) ? s.slice(0, -p.length) : s;
  },
  isdigit: (s) => every(s, (ch) => unicode().decimal.test(ch) || /^[\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089]$/.test(ch)),
  isdecimal: (s) => every(s, (ch) => unicode().decimal.test(ch)),
  isnumeric: (s) => every(s, (ch) => unicode().numeric.test(ch)),
  isalpha: (s) => every(s, (ch) => unicode().alpha.test(ch)),
  isalnum: (s) => every(s, (ch) => unicode().alpha.test(ch) || unicode().numeric.test(ch)),
  isspace: (s) => every(s, (ch) => isPySpace(ch.charCodeAt(0))),
  isascii: (s) => !/[^\u0000-\u007f]/.test(s),
  isidentifier: (s) => unicode().identifier.test(s),
  isprintable: (s) => isPrintable(s),
  islower: (s) => pyIsLower(s),
  isupper: (s) => pyIsUpper(s),
  istitle: (s) => pyIsTitle(s),
  expandtabs: (s, a, k) => {
    const size = optInt(arg(a, k, 0, 'tabsize', 8), 8);
    let tabs = 0;
    for (let at = s.indexOf('\t'); at !== -1; at = s.indexOf('\t', at + 1)) tabs++;
    chargeChars(s.length + tabs * Math.max(0, size));
    let out = '';
    let col = 0;
    for (const ch of s) {
      if (ch === '\t') {
        const n = size > 0 ? size - (col % size) : 0;
        out += ' '.repeat(n);
        col += n;
      } else {
        out += ch;
        col = ch === '\n' || ch === '\r' ? 0 : col + 1;
      }
    }
    return out;
  },
};

const LIST_METHODS: Record<string, (l: unknown[], args: unknown[], kwargs: Kwargs) => unknown> = {
  index: (l, a) => {
    for (let i = 0; i < l.length; i++) if (pyEq(l[i], a[0])) return i;
    throw new PyError('ValueError', `${pyRepr(a[0])} is not in list`);
  },
  count: (l, a) => l.filter((x) => pyEq(x, a[0])).length,
  copy: (l) => charged(l.slice()),
};
const LIST_UNSAFE = new Set(['append', 'clear', 'extend', 'insert', 'pop', 'remove', 'reverse', 'sort']);

type Dict = Record<string, unknown> | Map<unknown, unknown>;
const DICT_METHODS: Record<string, (d: Dict, args: unknown[], kwargs: Kwargs) => unknown> = {
  get: (d, a) => {
    const v = dictGet(d, a[0]);
    return v === MISSING ? (a.length > 1 ? a[1] : null) : v;
  },
  items: (d) => dictEntries(d).map((e) => makeTuple(e)),
  keys: (d) => dictKeys(d),
  values: (d) => dictEntries(d).map((e) => e[1]),
  copy: (d) => buildDict(dictEntries(d)),
};
const DICT_UNSAFE = new Set(['clear', 'pop', 'popitem', 'setdefault', 'update']);

/** Whether `d.name` on a dict finds a method (or a refused one) before the key `name`. */
export function isDictMethodName(name: string): boolean {
  return DICT_UNSAFE.has(name) || Object.prototype.hasOwnProperty.call(DICT_METHODS, name);
}

// Methods whose result is a copy of about the string's size (case maps, splits): paid for before they run.
for (const name of ['upper', 'lower', 'casefold', 'swapcase', 'title', 'capitalize', 'split', 'rsplit', 'splitlines', 'partition', 'rpartition']) {
  const inner = STR_METHODS[name]!;
  STR_METHODS[name] = (s, args, kwargs) => {
    chargeChars(s.length);
    const result = inner(s, args, kwargs);
    if (Array.isArray(result)) chargeItems(result.length);
    return result;
  };
}

/**
 * Python checks a method's arguments before it runs (method-arity.ts): a call it refuses fails first. For str, the
 * same wrapper hands a Markup argument over as its text ('a'.replace(x|safe, 'b') is str.replace).
 */
function checkingArity<Self>(
  type: string,
  methods: Record<string, (self: Self, args: unknown[], kwargs: Kwargs) => unknown>,
): typeof methods {
  const checked: typeof methods = Object.create(null);
  for (const name of Object.keys(methods)) {
    const inner = methods[name]!;
    const { fewest, most, check } = methodArity(type, name);
    const unmarks = type === 'str';
    // What a call may read without building as much (budget.ts scanItems): a str method reads its string, a
    // sequence's count and index read its items; a dict's methods are O(1) or build what they read.
    const reads = type === 'str' ? 'chars' : (type === 'list' || type === 'tuple') && (name === 'count' || name === 'index') ? 'items' : null;
    checked[name] = (self, args, kwargs) => {
      if (kwargs !== null || args.length < fewest || args.length > most) check(args, kwargs);
      if (reads === 'chars') scanChars((self as string).length);
      else if (reads === 'items') scanItems((self as unknown[]).length);
      return inner(self, unmarks && hasMarkup(args) ? args.map(unmark) : args, kwargs);
    };
  }
  return checked;
}

function hasMarkup(args: unknown[]): boolean {
  for (let i = 0; i < args.length; i++) if (args[i] instanceof Markup) return true;
  return false;
}

const CHECKED_LIST_METHODS = checkingArity('list', LIST_METHODS);
const TUPLE_METHODS = checkingArity('tuple', { index: LIST_METHODS.index!, count: LIST_METHODS.count! });
const CHECKED_DICT_METHODS = checkingArity('dict', DICT_METHODS);
Object.assign(STR_METHODS, checkingArity('str', STR_METHODS));

const MARKUP_METHODS: typeof STR_METHODS = Object.create(null);
for (const name of Object.keys(STR_METHODS)) MARKUP_METHODS[name] = markupMethod(name, STR_METHODS[name]!);
MARKUP_METHODS.format = (s, a, k) => new Markup(charged(strFormat(s, a, k, true)));
MARKUP_METHODS.format_map = (s, a, k) => new Markup(charged(strFormatMap(s, formatMapArgument(a, k), true)));

/** The implementation of obj.name(...) if obj has such a method. */
export function methodImpl(obj: unknown, name: string): Method | 'unsafe' | undefined {
  if (typeof obj === 'string') return (Object.prototype.hasOwnProperty.call(STR_METHODS, name) ? STR_METHODS[name] : undefined) as Method | undefined;
  if (obj instanceof Markup) {
    const impl = MARKUP_METHODS[name];
    return impl === undefined ? undefined : (((self: Markup, args: unknown[], kwargs: Kwargs) => impl(self.text, args, kwargs)) as Method);
  }
  if (Array.isArray(obj)) {
    if (isTuple(obj)) return (Object.prototype.hasOwnProperty.call(TUPLE_METHODS, name) ? TUPLE_METHODS[name] : undefined) as Method | undefined;
    if (LIST_UNSAFE.has(name)) return 'unsafe';
    return (Object.prototype.hasOwnProperty.call(CHECKED_LIST_METHODS, name) ? CHECKED_LIST_METHODS[name] : undefined) as Method | undefined;
  }
  if (isDict(obj)) {
    if (DICT_UNSAFE.has(name)) return 'unsafe';
    return (Object.prototype.hasOwnProperty.call(CHECKED_DICT_METHODS, name) ? CHECKED_DICT_METHODS[name] : undefined) as Method | undefined;
  }
  return undefined;
}

export function lookupMethod(obj: unknown, name: string): Callable | 'unsafe' | undefined {
  const impl = methodImpl(obj, name);
  if (impl === undefined || impl === 'unsafe') return impl;
  return new Callable(name, (args, kwargs) => impl(obj as never, args, kwargs), 'builtin_function_or_method');
}

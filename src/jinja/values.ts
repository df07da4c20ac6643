// Python value model over native JS values (see index.ts for the mapping).

/** An integral Python float such as 1.0; non-integral floats are plain JS numbers. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/**
 * Arrays marked with this key behave as Python tuples (printing, equality, `+`). A symbol key is invisible to
 * Object.keys, for-in and JSON, data can never carry it, and marking is much cheaper than a WeakSet (dict.items()
 * makes one tuple per entry).
 */
const TUPLE: unique symbol = Symbol('tuple');
type Marked = unknown[] & { [TUPLE]?: true };
export function makeTuple<T>(items: T[]): T[] {
  (items as Marked)[TUPLE] = true;
  return items;
}
export function isTuple(value: unknown): value is unknown[] {
  return Array.isArray(value) && (value as Marked)[TUPLE] === true;
}

/** groupby() results: tuples that also expose `.grouper` and `.list`. */
const groups = new WeakSet<unknown[]>();
export function makeGroup(grouper: unknown, list: unknown[]): unknown[] {
  const tuple = makeTuple([grouper, list]);
  groups.add(tuple);
  return tuple;
}
export function isGroup(value: unknown[]): boolean {
  return groups.has(value);
}

/** Python exception class raised when an undefined value is used. */
export type UndefinedExc = 'UndefinedError' | 'SecurityError';

/** jinja2's default Undefined: prints '', iterates empty, raises on attribute/item access and arithmetic. */
export class Undefined {
  constructor(
    readonly name: unknown,
    readonly obj: unknown = MISSING,
    readonly hint: string | undefined = undefined,
    readonly exc: UndefinedExc = 'UndefinedError',
  ) {}

  get message(): string {
    if (this.hint !== undefined) return this.hint;
    if (this.obj === MISSING) return `${reprName(this.name)} is undefined`;
    if (typeof this.name !== 'string') return `${objectTypeRepr(this.obj)} has no element ${reprName(this.name)}`;
    return `'${objectTypeRepr(this.obj)}' has no attribute ${reprName(this.name)}`;
  }
}
export const MISSING: unique symbol = Symbol('missing');

// Filled by repr.ts to avoid an import cycle for the message of Undefined.
let reprHook: (value: unknown) => string = (value) => String(value);
export function setReprHook(hook: (value: unknown) => string): void {
  reprHook = hook;
}
function reprName(name: unknown): string {
  return reprHook(name);
}

export function objectTypeRepr(obj: unknown): string {
  if (obj === null) return 'None';
  const type = pyTypeName(obj);
  if (obj instanceof RuntimeObject) return `${obj.pyModule}.${obj.pyClass} object`;
  if (type === 'Namespace') return 'jinja2.utils.Namespace object';
  if (type === 'Macro') return 'jinja2.runtime.Macro object';
  return `${type} object`;
}

/**
 * markupsafe's Markup: the str subclass `|safe` and `|escape` return. It behaves as its text everywhere except where
 * it meets a plain string (`+`, `%`, format, join and its own methods escape the plain side); see markup.ts.
 */
export class Markup {
  constructor(readonly text: string) {}
}

/** What map, select, reject, selectattr and rejectattr return: a Python generator, consumed once. */
export class PyGenerator {
  private items: unknown[] | null = null;
  private taken = 0;
  /** `produce` runs on first use, as the generator's body would. */
  constructor(
    readonly functionName: string,
    private readonly produce: () => unknown[],
  ) {}

  private all(): unknown[] {
    return (this.items ??= this.produce());
  }

  /** The next item, or MISSING once exhausted (next()). */
  take(): unknown {
    const items = this.all();
    return this.taken < items.length ? items[this.taken++] : MISSING;
  }

  /** Every item not taken yet; the generator is exhausted afterwards. */
  drain(): unknown[] {
    const items = this.all();
    const rest = this.taken === 0 ? items : items.slice(this.taken);
    this.taken = items.length;
    return rest;
  }
}

/** namespace(): the one mutable object templates may assign attributes to. */
export class Namespace {
  /**
   * A Map, not a null-prototype object: V8 keeps `Object.create(null)` objects in dictionary mode (a hash table
   * allocated per namespace, every render), and a Map keeps keyword order as jinja2's dict does, integer-like names too.
   */
  readonly attrs = new Map<string, unknown>();
}

/**
 * Keyword arguments travel as a null-prototype object, which lists integer-like names ("10") first. A call whose `**`
 * mapping brings such a name records the order Python keeps under this key (invisible to Object.keys and for-in);
 * what lists keywords in order (dict(), namespace(), a macro's `kwargs`) reads it through keywordNames.
 */
export const KEYWORD_ORDER: unique symbol = Symbol('keyword order');
export function keywordNames(kwargs: Record<string, unknown>): string[] {
  return (kwargs as { [KEYWORD_ORDER]?: string[] })[KEYWORD_ORDER] ?? Object.keys(kwargs);
}

/** Anything a template can call: macros, globals, bound methods, loop helpers. */
export type CallFn = (args: unknown[], kwargs: Record<string, unknown> | null) => unknown;
export class Callable {
  constructor(
    readonly name: string,
    readonly call: CallFn,
    readonly kind: 'function' | 'Macro' | 'method' | 'builtin_function_or_method' = 'function',
  ) {}
}

export function isUndefined(value: unknown): value is Undefined {
  return value instanceof Undefined;
}

/** A Python dict: a Map or a plain / null-prototype object. */
export function isDict(value: unknown): value is Record<string, unknown> | Map<unknown, unknown> {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof Map) return true;
  if (Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A Python int's value, a bool's as 0 or 1 (bool is an int subclass); undefined for anything else. */
export function pyIntValue(value: unknown): number | bigint | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return value;
  return undefined;
}

export function isInt(value: unknown): boolean {
  return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
}
export function isFloat(value: unknown): boolean {
  return (typeof value === 'number' && !Number.isInteger(value)) || value instanceof PyFloat;
}
/** int, float or bool (bool is an int subclass in Python). */
export function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value instanceof PyFloat;
}

export function pyTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'function':
      return 'function';
    case 'undefined':
      return 'Undefined';
  }
  if (value instanceof PyFloat) return 'float';
  if (Array.isArray(value)) return (value as Marked)[TUPLE] === true ? 'tuple' : 'list';
  if (value instanceof Undefined) return 'Undefined';
  if (value instanceof Namespace) return 'Namespace';
  if (value instanceof PyGenerator) return 'generator';
  if (value instanceof Markup) return 'Markup';
  if (value instanceof Callable) return value.kind;
  if (value instanceof RuntimeObject) return value.pyClass;
  if (isDict(value)) return 'dict';
  return 'object';
}

/** Base of jinja2's runtime objects (the loop, a cycler), so values.ts and repr.ts can name them without importing the runtime. */
export abstract class RuntimeObject {
  /** Python's class and its module: `LoopContext` in `jinja2.runtime`. */
  abstract readonly pyClass: string;
  abstract readonly pyModule: string;
  /** Python's repr of the object. */
  abstract pyRepr(): string;
}

export function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  if (value === null || value === undefined) return false;
  if (typeof value === 'bigint') return value !== 0n;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Undefined) return false;
  if (value instanceof PyFloat) return value.value !== 0;
  if (value instanceof Markup) return value.text.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (isDict(value)) {
    for (const _ in value) return true;
    return false;
  }
  return true;
}

// ---- dict helpers (plain objects and Maps) ----

const hasOwn = Object.prototype.hasOwnProperty;

/** Numeric keys compare by value in Python dicts: True == 1 == 1.0. */
function isNumericKey(key: unknown): boolean {
  return typeof key === 'number' || typeof key === 'boolean' || typeof key === 'bigint' || key instanceof PyFloat;
}
function numericKeyValue(key: unknown): number {
  if (typeof key === 'boolean') return key ? 1 : 0;
  if (key instanceof PyFloat) return key.value;
  return Number(key);
}
/**
 * The numeric keys of each Map that buildDict made, by value, the first key of each value (the one Python keeps). A JS
 * Map tells 1, 1.0 and True apart where Python files them under one key, so finding a key by value scanned every key:
 * building a dict of 50,000 integer keys took 8 s, and each lookup of a missing one read them all. Template dicts are
 * immutable in the sandbox, so an index made with its Map stays true; a Map the caller passes in is scanned.
 */
const numericKeys = new WeakMap<Map<unknown, unknown>, Map<number, unknown>>();

/** The stored key of a Map equal to key (Python hashing of numbers), or MISSING. */
function findMapKey(map: Map<unknown, unknown>, key: unknown): unknown {
  if (map.has(key)) return key;
  if (!isNumericKey(key)) return MISSING;
  const want = numericKeyValue(key);
  const index = numericKeys.get(map);
  // NaN equals nothing (the scan's === agrees), though a Map would find it.
  if (index !== undefined) return want === want ? (index.get(want) ?? MISSING) : MISSING;
  for (const k of map.keys()) if (isNumericKey(k) && numericKeyValue(k) === want) return k;
  return MISSING;
}

export function dictHas(dict: Record<string, unknown> | Map<unknown, unknown>, key: unknown): boolean {
  if (dict instanceof Map) return findMapKey(dict, key) !== MISSING;
  return typeof key === 'string' && hasOwn.call(dict, key);
}

/** The value under key, or MISSING. */
export function dictGet(dict: Record<string, unknown> | Map<unknown, unknown>, key: unknown): unknown {
  if (dict instanceof Map) {
    const stored = findMapKey(dict, key);
    return stored === MISSING ? MISSING : dict.get(stored);
  }
  if (typeof key !== 'string' || !hasOwn.call(dict, key)) return MISSING;
  const value = dict[key];
  return value === undefined ? MISSING : value;
}

export function dictKeys(dict: Record<string, unknown> | Map<unknown, unknown>): unknown[] {
  if (dict instanceof Map) return [...dict.keys()];
  // Object.keys gives a fresh array: returned as it is unless a key holds undefined (absent to Python).
  const keys: unknown[] = Object.keys(dict);
  for (let i = 0; i < keys.length; i++) {
    if (dict[keys[i] as string] === undefined) return keys.filter((key) => dict[key as string] !== undefined);
  }
  return keys;
}

export function dictEntries(dict: Record<string, unknown> | Map<unknown, unknown>): Array<[unknown, unknown]> {
  if (dict instanceof Map) return [...dict.entries()];
  const entries: Array<[unknown, unknown]> = [];
  for (const key of Object.keys(dict)) {
    const value = dict[key];
    if (value !== undefined) entries.push([key, value]);
  }
  return entries;
}

export function dictSize(dict: Record<string, unknown> | Map<unknown, unknown>): number {
  return dict instanceof Map ? dict.size : dictKeys(dict).length;
}

/** Builds a dict keeping insertion order: a Map when a key is not a string or would be reordered by JS objects. */
export function buildDict(entries: Array<[unknown, unknown]>): Record<string, unknown> | Map<unknown, unknown> {
  let needsMap = false;
  for (const [key] of entries) {
    if (typeof key !== 'string' || isArrayIndexKey(key)) {
      needsMap = true;
      break;
    }
  }
  if (needsMap) {
    const map = new Map<unknown, unknown>();
    const index = new Map<number, unknown>();
    numericKeys.set(map, index);
    for (const [key, value] of entries) {
      const stored = findMapKey(map, key);
      if (stored !== MISSING) {
        map.set(stored, value);
        continue;
      }
      map.set(key, value);
      if (isNumericKey(key)) index.set(numericKeyValue(key), key);
    }
    return map;
  }
  const obj: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) obj[key as string] = value;
  return obj;
}

/** Keys JS objects move to the front ("0", "10", ... up to 2^32 - 2). */
export function isArrayIndexKey(key: string): boolean {
  const n = key.length;
  if (n === 0 || n > 10) return false;
  const first = key.charCodeAt(0);
  if (first === 48) return n === 1;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(key) < 4294967295;
}

// ---- strings as code points ----

/**
 * One code unit class, no quantifier: linear. V8 answers it for a one-byte string without reading it (no such string
 * holds a surrogate) and scans two-byte ones natively; a JS loop over the code units cost 3-4 ns a character, on
 * every len(), slice and str comparison.
 */
const SURROGATE = /[\ud800-\udfff]/;

export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

export function codePoints(s: string): string[] {
  return hasSurrogates(s) ? Array.from(s) : s.split('');
}

/** The first `count` code points of s: Python's `s[:count]`, never half a surrogate pair. */
export function codePointPrefix(s: string, count: number): string {
  return hasSurrogates(s) ? Array.from(s).slice(0, count).join('') : s.slice(0, count);
}

export function strLength(s: string): number {
  if (!hasSurrogates(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Python str.isspace() for one code unit (all Python whitespace is in the BMP). */
export function isPySpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

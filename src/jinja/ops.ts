// Python semantics of operators, attribute/item access and iteration.
import { PyError, typeError } from './errors.js';
import { percentFormat } from './format.js';
import { markupAdd, unmark } from './markup.js';
import { isDictMethodName, lookupMethod } from './methods.js';
import { binaryNumeric, compareNumbers, numericOp, truncInt, unsupported } from './numbers.js';
import { pyStr } from './repr.js';
import {
  Callable, RuntimeObject, MISSING, Markup, Namespace, PyFloat, PyGenerator, Undefined, codePoints, dictGet, dictHas, dictKeys, dictSize,
  dictEntries, hasSurrogates, isDict, isGroup, isTuple, makeTuple, pyIntValue, pyTypeName, strLength,
} from './values.js';
import { charged, chargeChars, chargeItems, scanChars, scanItems } from './budget.js';

/** Objects with their own attribute table (the loop object, a cycler). */
export abstract class AttrObject extends RuntimeObject {
  abstract attr(name: string): unknown;
}

export function undefinedError(value: Undefined): PyError {
  return new PyError(value.exc, value.message);
}

/** What the sandbox gives for an attribute it refuses: an Undefined that raises SecurityError when used. */
export function unsafe(obj: unknown, name: string): Undefined {
  return new Undefined(name, obj, `access to attribute '${name}' of '${pyTypeName(obj)}' object is unsafe.`, 'SecurityError');
}

// Attributes every Python object has: the sandbox finds them and refuses them (SecurityError when used).
const OBJECT_DUNDERS = new Set([
  '__class__', '__dict__', '__doc__', '__module__', '__init__', '__new__', '__repr__', '__str__', '__eq__', '__ne__',
  '__lt__', '__le__', '__gt__', '__ge__', '__hash__', '__getattribute__', '__setattr__', '__delattr__', '__dir__',
  '__reduce__', '__reduce_ex__', '__sizeof__', '__subclasshook__', '__init_subclass__', '__format__',
]);
function isDunder(name: string): boolean {
  return OBJECT_DUNDERS.has(name);
}

/**
 * `obj.name` for a name fixed at compile time. Plain-object dicts (what JSON gives) take a direct own-property
 * read when the name can be neither a sandbox-refused dunder nor a dict method; everything else goes to getAttr.
 */
export function attrReader(name: string): (obj: unknown) => unknown {
  if (isDunder(name) || isDictMethodName(name)) return (obj) => getAttr(obj, name);
  if (!(name in Object.prototype)) {
    // A name Object.prototype lacks is on a plain object only as its own property (templates cannot write to
    // prototypes, and JSON readers make `__proto__` an own key), so one keyed read answers, without an own-check.
    return (obj) => {
      if (obj !== null && typeof obj === 'object') {
        const proto = Object.getPrototypeOf(obj);
        if (proto === Object.prototype || proto === null) {
          const value = (obj as Record<string, unknown>)[name];
          return value === undefined ? new Undefined(name, obj) : value;
        }
      }
      return otherAttr(obj, name);
    };
  }
  return (obj) => {
    if (obj !== null && typeof obj === 'object') {
      const proto = Object.getPrototypeOf(obj);
      if (proto === Object.prototype || proto === null) {
        const value = hasOwnProperty.call(obj, name) ? (obj as Record<string, unknown>)[name] : undefined;
        return value === undefined ? new Undefined(name, obj) : value;
      }
    }
    return otherAttr(obj, name);
  };
}

/** `obj.name` on anything but a plain object. */
function otherAttr(obj: unknown, name: string): unknown {
  if (obj instanceof Namespace) return namespaceAttr(obj, name);
  if (obj instanceof AttrObject) {
    const value = obj.attr(name);
    return value === MISSING ? new Undefined(name, obj) : value;
  }
  return getAttr(obj, name);
}
const hasOwnProperty = Object.prototype.hasOwnProperty;

/** Whether `obj.name` is defined (what `obj.name is defined` asks), without building the Undefined when it is not. */
export function attrPresence(name: string): (obj: unknown) => boolean {
  const read = attrReader(name);
  if (isDunder(name) || isDictMethodName(name)) return (obj) => !(read(obj) instanceof Undefined);
  return (obj) => {
    if (obj !== null && typeof obj === 'object') {
      const proto = Object.getPrototypeOf(obj);
      if (proto === Object.prototype || proto === null) {
        const value = hasOwnProperty.call(obj, name) ? (obj as Record<string, unknown>)[name] : undefined;
        return value !== undefined && !(value instanceof Undefined);
      }
    }
    return !(read(obj) instanceof Undefined);
  };
}

/** A namespace's attribute; the sandbox refuses names starting with `_` (jinja2's is_safe_attribute). */
function namespaceAttr(ns: Namespace, name: string): unknown {
  const value = ns.attrs.get(name);
  if (value === undefined) return new Undefined(name, ns);
  return name.startsWith('_') ? unsafe(ns, name) : value;
}

/** `obj.name`: Python attribute first, then item (jinja2 sandbox getattr). */
export function getAttr(obj: unknown, name: string): unknown {
  if (isDunder(name) && obj !== null) return unsafe(obj, name);
  if (obj instanceof Undefined) throw undefinedError(obj);
  if (isDict(obj)) {
    const method = lookupMethod(obj, name);
    if (method === 'unsafe') return unsafe(obj, name);
    if (method !== undefined) return method;
    const value = dictGet(obj, name);
    return value === MISSING ? new Undefined(name, obj) : value;
  }
  if (obj instanceof Namespace) return namespaceAttr(obj, name);
  if (obj instanceof AttrObject) {
    const value = obj.attr(name);
    return value === MISSING ? new Undefined(name, obj) : value;
  }
  if (Array.isArray(obj) && isGroup(obj)) {
    if (name === 'grouper') return obj[0];
    if (name === 'list') return obj[1];
  }
  const method = lookupMethod(obj, name);
  if (method === 'unsafe') return unsafe(obj, name);
  if (method !== undefined) return method;
  // Numbers have no methods here; their data attributes come after the lookup, which str's method reads take.
  const number = numberAttr(obj, name);
  return number !== MISSING ? number : new Undefined(name, obj);
}

/**
 * The data attributes of Python's numbers: `real` and `imag` of an int, a bool (whose `real` is the int) and a float,
 * an int's `numerator` and `denominator` (`groupby('real')` over ints reads one).
 */
function numberAttr(obj: unknown, name: string): unknown {
  const int = pyIntValue(obj);
  if (int !== undefined) {
    if (name === 'real' || name === 'numerator') return int;
    if (name === 'imag') return 0;
    if (name === 'denominator') return 1;
    return MISSING;
  }
  if (obj instanceof PyFloat || typeof obj === 'number') {
    if (name === 'real') return obj;
    if (name === 'imag') return new PyFloat(0);
  }
  return MISSING;
}

/** Python sequence index → JS index, or -1 when out of range. */
function seqIndex(index: unknown, length: number): number {
  const i = typeof index === 'boolean' ? (index ? 1 : 0) : Number(index);
  const j = i < 0 ? i + length : i;
  return j >= 0 && j < length ? j : -1;
}

/** `obj[key]`: item first, then attribute for string keys (jinja2 sandbox getitem). */
export function getItem(obj: unknown, key: unknown): unknown {
  if (obj instanceof Undefined) throw undefinedError(obj);
  if (obj instanceof Markup && typeof key !== 'string') {
    // Markup's __getitem__ is one of its escaping overrides: a character or a slice is Markup too.
    const part = getItem(obj.text, key);
    return typeof part === 'string' ? new Markup(part) : part;
  }
  if (key instanceof SliceValue) return sliceValue(obj, key);
  if (isDict(obj)) {
    const value = dictGet(obj, key);
    if (value !== MISSING) return value;
  } else if (Array.isArray(obj)) {
    if (typeof key === 'number' && Number.isInteger(key)) {
      const j = seqIndex(key, obj.length);
      if (j !== -1) return obj[j];
    } else if (typeof key === 'boolean') {
      const j = seqIndex(key, obj.length);
      if (j !== -1) return obj[j];
    }
  } else if (typeof obj === 'string') {
    if ((typeof key === 'number' && Number.isInteger(key)) || typeof key === 'boolean') {
      if (!hasSurrogates(obj)) {
        const j = seqIndex(key, obj.length);
        if (j !== -1) return obj[j];
      } else {
        const chars = codePoints(obj);
        const j = seqIndex(key, chars.length);
        if (j !== -1) return chars[j];
      }
    }
  }
  if (typeof key === 'string') {
    if (obj === null) return new Undefined(key, obj);
    return getAttr(obj, key);
  }
  return new Undefined(key, obj);
}

/**
 * `obj['key']` for a string key fixed at compile time: a plain-object dict holding the key answers with one own-property
 * check; everything else (a missing key falls back to the attribute, Maps, sequences) goes through getItem.
 */
export function itemReader(key: string): (obj: unknown) => unknown {
  return (obj) => {
    if (obj !== null && typeof obj === 'object') {
      const proto = Object.getPrototypeOf(obj);
      if ((proto === Object.prototype || proto === null) && hasOwnProperty.call(obj, key)) {
        const value = (obj as Record<string, unknown>)[key];
        if (value !== undefined) return value;
      }
    }
    return getItem(obj, key);
  };
}

export class SliceValue {
  constructor(
    readonly start: unknown,
    readonly stop: unknown,
    readonly step: unknown,
  ) {}
}

function sliceBound(value: unknown, what: string): number | null {
  if (value === null || value === undefined || value instanceof Undefined) return null;
  const n = truncInt(value);
  if (n === undefined || value instanceof PyFloat || (typeof value === 'number' && !Number.isInteger(value))) {
    throw typeError(`slice indices must be integers or None or have an __index__ method`);
  }
  void what;
  return Number(n);
}

/** Python slice.indices(length): [start, stop, step] after clamping. */
export function sliceBounds(length: number, s: SliceValue): [number, number, number] {
  const step = sliceBound(s.step, 'step') ?? 1;
  if (step === 0) throw new PyError('ValueError', 'slice step cannot be zero');
  let start = sliceBound(s.start, 'start');
  let stop = sliceBound(s.stop, 'stop');
  if (step > 0) {
    start = start === null ? 0 : start < 0 ? Math.max(start + length, 0) : Math.min(start, length);
    stop = stop === null ? length : stop < 0 ? Math.max(stop + length, 0) : Math.min(stop, length);
  } else {
    start = start === null ? length - 1 : start < 0 ? Math.max(start + length, -1) : Math.min(start, length - 1);
    stop = stop === null ? -1 : stop < 0 ? Math.max(stop + length, -1) : Math.min(stop, length - 1);
  }
  return [start, stop, step];
}

export function sliceIndices(length: number, s: SliceValue): number[] {
  const [start, stop, step] = sliceBounds(length, s);
  const out: number[] = [];
  if (step > 0) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  return out;
}

/** The items of a slice with a step other than 1 (`messages[::-1]`), written into a list of their number. */
function steppedItems(list: unknown[], start: number, stop: number, step: number): unknown[] {
  const count = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  const out = new Array<unknown>(count);
  for (let k = 0, i = start; k < count; k++, i += step) out[k] = list[i];
  return out;
}

function sliceValue(obj: unknown, s: SliceValue): unknown {
  if (typeof obj === 'string') {
    if (!hasSurrogates(obj)) {
      const [start, stop, step] = sliceBounds(obj.length, s);
      if (step === 1) return start < stop ? obj.slice(start, stop) : '';
      let out = '';
      if (step > 0) for (let i = start; i < stop; i += step) out += obj[i];
      else for (let i = start; i > stop; i += step) out += obj[i];
      return out;
    }
    const chars = codePoints(obj);
    return sliceIndices(chars.length, s).map((i) => chars[i]).join('');
  }
  if (Array.isArray(obj)) {
    const [start, stop, step] = sliceBounds(obj.length, s);
    const out = step === 1 ? (start < stop ? obj.slice(start, stop) : []) : steppedItems(obj, start, stop, step);
    return isTuple(obj) ? makeTuple(out) : out;
  }
  // A slice skips jinja2's getitem (which gives Undefined for what cannot be indexed): Python's own TypeError.
  if (isDict(obj)) throw typeError("unhashable type: 'slice'");
  throw typeError(`'${pyTypeName(obj)}' object is not subscriptable`);
}

/** Items a for-loop (or list()) sees. */
export function iterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value instanceof PyGenerator) return value.drain();
  if (value instanceof Markup) return iterate(value.text);
  if (typeof value === 'string') {
    // A list of one string per character: paid for before it is built (a 60 M character string is 480 MB of list).
    chargeItems(value.length);
    return codePoints(value);
  }
  if (isDict(value)) return dictKeys(value);
  if (value instanceof Undefined) {
    if (value.exc === 'SecurityError') throw undefinedError(value);
    return [];
  }
  throw typeError(`'${pyTypeName(value)}' object is not iterable`);
}

export function pyLen(value: unknown): number {
  if (typeof value === 'string') {
    scanChars(value.length);
    return strLength(value);
  }
  if (value instanceof Markup) return pyLen(value.text);
  if (Array.isArray(value)) return value.length;
  if (isDict(value)) {
    const size = dictSize(value);
    // A dict held as an object is counted key by key.
    if (!(value instanceof Map)) scanItems(size);
    return size;
  }
  if (value instanceof Undefined) return 0;
  throw typeError(`object of type '${pyTypeName(value)}' has no len()`);
}

export function pyEq(a: unknown, b: unknown): boolean {
  if (a === b) {
    // Two strings of one length are compared character by character (the same string object is free, but costs
    // too little to tell apart).
    if (typeof a === 'string') scanChars(a.length);
    return true;
  }
  if (a instanceof Markup || b instanceof Markup) return pyEq(unmark(a), unmark(b));
  if (typeof a === 'string' || typeof b === 'string') {
    if (typeof a === 'string' && typeof b === 'string' && a.length === b.length) scanChars(a.length);
    return false;
  }
  const n = compareNumbers(a, b);
  if (n !== undefined) return n === 0;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length || isTuple(a) !== isTuple(b)) return false;
    scanItems(a.length);
    for (let i = 0; i < a.length; i++) if (!pyEq(a[i], b[i])) return false;
    return true;
  }
  if (isDict(a)) {
    if (!isDict(b)) return false;
    if (!(a instanceof Map) && !(b instanceof Map)) return objectDictsEqual(a, b);
    if (dictSize(a) !== dictSize(b)) return false;
    scanItems(dictSize(a));
    for (const [k, v] of dictEntries(a)) {
      const w = dictGet(b, k);
      if (w === MISSING || !pyEq(v, w)) return false;
    }
    return true;
  }
  if (a instanceof Undefined) return b instanceof Undefined;
  if (a instanceof PyFloat || b instanceof PyFloat) return false;
  return false;
}

/** Items of a dict held as an object (an own key whose value is undefined is no item), counted without a key list. */
function objectDictSize(dict: Record<string, unknown>): number {
  let size = 0;
  for (const key in dict) if (hasOwnProperty.call(dict, key) && dict[key] !== undefined) size++;
  return size;
}

/**
 * dict == dict for two object-held dicts (`message == user_messages[-1]`, per message in Mistral's templates): sizes
 * first, as Python does, then each item; no key or entry lists are built.
 */
function objectDictsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const size = objectDictSize(a);
  scanItems(size);
  if (size !== objectDictSize(b)) return false;
  for (const key in a) {
    if (!hasOwnProperty.call(a, key)) continue;
    const v = a[key];
    if (v === undefined) continue;
    if (!hasOwnProperty.call(b, key)) return false;
    const w = b[key];
    if (w === undefined || !pyEq(v, w)) return false;
  }
  return true;
}

function compareStrings(a: string, b: string): number {
  scanChars(Math.min(a.length, b.length));
  if (a === b) return 0;
  if (!hasSurrogates(a) && !hasSurrogates(b)) return a < b ? -1 : 1;
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length - y.length < 0 ? -1 : x.length === y.length ? 0 : 1;
}

/** Python ordering of two values: negative, 0, positive (NaN when unordered). */
export function pyCompare(a: unknown, b: unknown, op = '<'): number {
  if (a instanceof Markup || b instanceof Markup) return pyCompare(unmark(a), unmark(b), op);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  const n = compareNumbers(a, b);
  if (n !== undefined) return n;
  if (a instanceof Undefined) throw undefinedError(a);
  if (b instanceof Undefined) throw undefinedError(b);
  if (Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) {
    scanItems(Math.min(a.length, b.length));
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEq(a[i], b[i])) return pyCompare(a[i], b[i], op);
    }
    return a.length - b.length;
  }
  throw typeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

export function compareOp(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return pyEq(a, b);
    case '!=':
      return !pyEq(a, b);
    case '<':
      return pyCompare(a, b, op) < 0;
    case '>':
      return pyCompare(a, b, op) > 0;
    case '<=':
      return pyCompare(a, b, op) <= 0;
    case '>=':
      return pyCompare(a, b, op) >= 0;
    case 'in':
      return contains(b, a);
    case 'notin':
      return !contains(b, a);
  }
  throw typeError(`unknown operator ${op}`);
}

/** Python's TypeError for a value that cannot be a dict key: a list or dict, or a tuple holding one. */
export function checkHashable(key: unknown): void {
  if (isDict(key)) throw typeError(`unhashable type: 'dict'`);
  if (!Array.isArray(key)) return;
  if (!isTuple(key)) throw typeError(`unhashable type: 'list'`);
  for (const item of key) checkHashable(item);
}

export function contains(container: unknown, item: unknown): boolean {
  if (container instanceof Markup || item instanceof Markup) return contains(unmark(container), unmark(item));
  if (typeof container === 'string') {
    // An Undefined on the left is not asked to be anything: str's own TypeError names it.
    if (typeof item !== 'string') throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    scanChars(container.length);
    return container.includes(item);
  }
  if (Array.isArray(container) && typeof item === 'string') {
    scanItems(container.length);
    // `key in ['name', 'type']`, per key of every tool: a str equals only a str (or a Markup) of the same text.
    for (let i = 0; i < container.length; i++) {
      const x = container[i];
      if (x === item || (typeof x !== 'string' && pyEq(x, item))) return true;
    }
    return false;
  }
  if (Array.isArray(container) || container instanceof PyGenerator) {
    const items = iterate(container);
    scanItems(items.length);
    for (const x of items) if (pyEq(x, item)) return true;
    return false;
  }
  if (isDict(container)) {
    checkHashable(item);
    return dictHas(container, item);
  }
  if (container instanceof Undefined) return false;
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string') {
    chargeChars(a.length + b.length);
    return a + b;
  }
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a + b)) {
    if (Number.isInteger(a) && Number.isInteger(b)) return a + b;
  }
  if (a instanceof Undefined) throw undefinedError(a);
  if (b instanceof Undefined) throw undefinedError(b);
  if (a instanceof Markup || b instanceof Markup) return markupAdd(a, b);
  const r = numericOp('+', a, b);
  if (r !== undefined) return r;
  if (typeof a === 'string') throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  if (Array.isArray(a)) {
    const kind = isTuple(a) ? 'tuple' : 'list';
    if (!Array.isArray(b) || isTuple(b) !== isTuple(a)) throw typeError(`can only concatenate ${kind} (not "${pyTypeName(b)}") to ${kind}`);
    chargeItems(a.length + b.length);
    const out = a.concat(b);
    return isTuple(a) ? makeTuple(out) : out;
  }
  throw typeError(`unsupported operand type(s) for +: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** An int Python takes as an index (a repeat count, a slice bound): bools count; undefined for anything else. */
export function repeatCount(n: unknown): number | undefined {
  if (typeof n === 'boolean') return n ? 1 : 0;
  if (typeof n === 'number' && Number.isInteger(n)) return n;
  if (typeof n === 'bigint') {
    if (n > MAX_INDEX || n < -MAX_INDEX - 1n) throw new PyError('OverflowError', "cannot fit 'int' into an index-sized integer");
    return Number(n);
  }
  return undefined;
}
const MAX_INDEX = 2n ** 63n - 1n;

export function arith(op: string, a: unknown, b: unknown): unknown {
  if (a instanceof Undefined) throw undefinedError(a);
  // `'text' % undefined` is str's own formatting, which takes the Undefined as one more argument.
  if (b instanceof Undefined && !(op === '%' && typeof a === 'string')) throw undefinedError(b);
  if (op === '+') return add(a, b);
  if (a instanceof Markup || b instanceof Markup) {
    if (op === '%' && a instanceof Markup) return new Markup(charged(percentFormat(a.text, b, true)));
    if (op === '*') {
      // markupsafe repeats through str.__mul__(markup, other) whichever side the Markup is on: the other side must be
      // an index, and Python's message names its type (a list on the left is not repeated either).
      const count = a instanceof Markup ? b : a;
      if (repeatCount(count) === undefined) throw typeError(`'${pyTypeName(count)}' object cannot be interpreted as an integer`);
    }
    // A Markup is a str: no arithmetic but +, * and a format's %, and Python's message names the Markup.
    if (op !== '*' && !(op === '%' && typeof a === 'string')) throw unsupported(op, a, b);
    const result = arith(op, unmark(a), unmark(b));
    return op === '*' && typeof result === 'string' ? new Markup(result) : result;
  }
  if (op === '*') {
    const seq = typeof a === 'string' || Array.isArray(a) ? a : typeof b === 'string' || Array.isArray(b) ? b : undefined;
    if (seq !== undefined) {
      const count = repeatCount(seq === a ? b : a);
      if (count === undefined) throw typeError(`can't multiply sequence by non-int of type '${pyTypeName(seq === a ? b : a)}'`);
      const times = Math.max(0, count);
      if (typeof seq === 'string') {
        chargeChars(times * seq.length);
        return seq.repeat(times);
      }
      const items = seq as unknown[];
      chargeItems(times * items.length);
      const out = new Array<unknown>(times * items.length);
      for (let k = 0; k < out.length; k++) out[k] = items[k % items.length];
      return isTuple(seq) ? makeTuple(out) : out;
    }
  }
  if (op === '%' && typeof a === 'string') return charged(percentFormat(a, b));
  return binaryNumeric(op, a, b);
}

export function concatStr(value: unknown): string {
  return typeof value === 'string' ? value : pyStr(value);
}

/** Call any template value. */
export function callValue(fn: unknown, args: unknown[], kwargs: Record<string, unknown> | null): unknown {
  if (fn instanceof Callable) return fn.call(args, kwargs);
  if (fn instanceof Undefined) throw undefinedError(fn);
  throw typeError(`'${pyTypeName(fn)}' object is not callable`);
}

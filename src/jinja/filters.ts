// jinja2's builtin filters, with transformers' tojson.
import { BYTES_PER_CHAR, BYTES_PER_ITEM, charge, charged, chargeChars, chargeItems, scanChars, scanItems } from './budget.js';
import { PyError, typeError } from './errors.js';
import { percentFormat } from './format.js';
import { dumpJson, type DumpOptions } from './json-write.js';
import { methodImpl, pyStrip } from './methods.js';
import { pyCapitalize } from './case.js';
import { asFloat, makeFloat, truncInt, negate, compareNumbers } from './numbers.js';
import { add, getAttr, getItem, iterate, pyCompare, pyEq, pyLen, undefinedError } from './ops.js';
import { pyRepr, pyStr } from './repr.js';
import { TESTS, testBinder } from './tests.js';
import {
  MISSING, Markup, PyFloat, PyGenerator, Undefined, codePoints, dictEntries, dictSize, hasSurrogates, isDict, isTuple, makeGroup, makeTuple, pyTypeName, truthy,
} from './values.js';
import { arg, type Kwargs } from './filter-args.js';
import { pythonFilter } from './filter-signatures.js';
import { pythonArity } from './python-call.js';
import { doRound, parsePyFloat, parsePyInt } from './filters-number.js';
import { doIndent, doStriptags, doTitle, doTruncate, doUrlencode, htmlEscape } from './filters-text.js';
import { doWordwrap } from './filters-wrap.js';
import { pformat } from './pprint.js';
import { pythonSort } from './sort.js';

export type { Kwargs };
export { parsePyFloat };
export type FilterFn = (value: unknown, args: unknown[], kwargs: Kwargs) => unknown;

function ignoreCase(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

/** jinja2 make_attrgetter: dotted path, integer parts index sequences. */
export function attrGetter(attribute: unknown, postprocess?: (v: unknown) => unknown, fallback?: unknown): (item: unknown) => unknown {
  const parts: unknown[] =
    typeof attribute === 'string'
      ? attribute.split('.').map((p) => (/^[0-9]+$/.test(p) ? Number(p) : p))
      : [attribute];
  return (item) => {
    let v = item;
    for (const part of parts) {
      v = getItem(v, part);
      if (fallback !== undefined && fallback !== null && v instanceof Undefined) v = fallback;
    }
    return postprocess ? postprocess(v) : v;
  };
}

function attrKey(attribute: unknown, caseSensitive: boolean): (item: unknown) => unknown {
  const post = caseSensitive ? undefined : ignoreCase;
  if (attribute === null || attribute === undefined) return post ?? ((x) => x);
  if (typeof attribute === 'string' && attribute.includes(',')) {
    const getters = attribute.split(',').map((a) => attrGetter(a, post));
    return (item) => makeTuple(getters.map((g) => g(item)));
  }
  return attrGetter(attribute, post);
}

/** Whether every key is a str without surrogates: then UTF-16 order is Python's code point order. */
function allBmpStrings(keyed: Array<{ key: unknown }>): boolean {
  for (const { key } of keyed) if (typeof key !== 'string' || hasSurrogates(key)) return false;
  return true;
}

/**
 * `items` sorted by `key`, stably. `listKeys`: the keys are compared as jinja2's `sort` compares them, each inside a
 * one-item list (make_multi_attrgetter), so two equal keys are never ordered: `[{'a': 1}, {'a': 1}]|sort` and a sort by
 * an attribute no item has keep their order where a bare `<` would raise.
 */
function sortedBy(items: unknown[], key: (item: unknown) => unknown, reverse: boolean, listKeys = false): unknown[] {
  const keyed = items.map((item, index) => ({ item, key: key(item), index }));
  const sign = reverse ? -1 : 1;
  // Dict keys and names are the common case: compared directly instead of through pyCompare's dispatch, and each
  // key is scanned for surrogates once instead of on every comparison.
  if (allBmpStrings(keyed)) {
    keyed.sort((a, b) => (a.key === b.key ? a.index - b.index : (a.key as string) < (b.key as string) ? -sign : sign));
  } else {
    // Python's sorted(reverse=True) reverses, sorts stably and reverses back; its comparisons, in its order, decide
    // which TypeError a list of keys Python cannot order raises.
    if (reverse) keyed.reverse();
    pythonSort(keyed, (a, b) => !(listKeys && pyEq(a.key, b.key)) && pyCompare(a.key, b.key, '<') < 0);
    if (reverse) keyed.reverse();
  }
  return keyed.map((k) => k.item);
}

/**
 * The key `dictsort` compares: the key itself when case-sensitive or when it has no character lower() changes
 * (ASCII without capitals, as tool parameter names are), else its lower case. Null when it has surrogates: UTF-16
 * order is Python's code point order only without them.
 */
function sortKeyOf(key: string, caseSensitive: boolean): string | null {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 127 || (c >= 65 && c <= 90 && !caseSensitive)) {
      const sortKey = caseSensitive ? key : key.toLowerCase();
      return hasSurrogates(sortKey) ? null : sortKey;
    }
  }
  return key;
}

/**
 * `dict|dictsort` of a plain-object dict, by key: an insertion sort of the (key, value) tuples as they are built,
 * without sortedBy's keyed records (tool parameters and call arguments have a handful of keys). Equal keys keep their
 * order, as Python's stable sort does. Undefined when a key has surrogates or the dict is large: sortedBy decides.
 */
function sortedByKey(dict: Record<string, unknown>, caseSensitive: boolean, reverse: boolean): unknown[] | undefined {
  const keys = Object.keys(dict);
  if (keys.length > MAX_INSERTION_SORTED) return undefined;
  const pairs: unknown[][] = [];
  const sortKeys: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = dict[key];
    if (value === undefined) continue;
    const sortKey = sortKeyOf(key, caseSensitive);
    if (sortKey === null) return undefined;
    let j = pairs.length;
    pairs.push(NO_PAIR);
    sortKeys.push(sortKey);
    while (j > 0 && (reverse ? sortKey > sortKeys[j - 1]! : sortKey < sortKeys[j - 1]!)) {
      pairs[j] = pairs[j - 1]!;
      sortKeys[j] = sortKeys[j - 1]!;
      j--;
    }
    pairs[j] = [key, value];
    sortKeys[j] = sortKey;
  }
  for (let i = 0; i < pairs.length; i++) makeTuple(pairs[i]!);
  return pairs;
}
const NO_PAIR: unknown[] = [];
/** Larger dicts go to sortedBy's O(n log n) sort. */
const MAX_INSERTION_SORTED = 32;

function minMax(value: unknown, args: unknown[], kwargs: Kwargs, sign: number): unknown {
  const items = iterate(value);
  if (items.length === 0) return new Undefined(null, undefined, 'No aggregated item, sequence was empty.');
  const caseSensitive = truthy(arg(args, kwargs, 0, 'case_sensitive', false));
  const key = attrKey(arg(args, kwargs, 1, 'attribute', null), caseSensitive);
  let best = items[0];
  let bestKey = key(best);
  for (let i = 1; i < items.length; i++) {
    const k = key(items[i]);
    // Python's max asks `item > best`, min `item < best`: the operator its TypeError names.
    if (pyCompare(k, bestKey, sign > 0 ? '>' : '<') * sign > 0) {
      best = items[i];
      bestKey = k;
    }
  }
  return best;
}

/** jinja2 runs these filters as generators that start with `if value:`: any falsy input gives nothing. */
function generator(functionName: string, value: unknown, produce: (items: unknown[]) => unknown[]): PyGenerator {
  return new PyGenerator(functionName, () => charged(truthy(value) ? produce(iterate(value)) : []));
}

function selectOrReject(value: unknown, args: unknown[], kwargs: Kwargs, useAttr: boolean, expect: boolean): PyGenerator {
  return generator('select_or_reject', value, (items) => selectItems(items, args, kwargs, useAttr, expect));
}

function selectItems(items: unknown[], args: unknown[], kwargs: Kwargs, useAttr: boolean, expect: boolean): unknown[] {
  let rest = args;
  let getter: (item: unknown) => unknown = (x) => x;
  if (useAttr) {
    if (rest.length === 0) throw typeError('Missing parameter for attribute name');
    getter = attrGetter(rest[0]);
    rest = rest.slice(1);
  }
  let test: (v: unknown) => boolean;
  if (rest.length === 0) test = truthy;
  else {
    const name = rest[0];
    const fn = typeof name === 'string' && Object.prototype.hasOwnProperty.call(TESTS, name) ? TESTS[name] : undefined;
    if (!fn) throw new PyError('TemplateRuntimeError', `No test named ${pyRepr(name)}.`);
    const testArgs = rest.slice(1);
    // jinja2 hands the filter's keywords to the test too, and binds them only when an item is tested.
    const bind = testBinder(name as string);
    let bound: unknown[] | undefined;
    test = (v) => fn(v, (bound ??= bind(testArgs, kwargs)));
  }
  return items.filter((item) => test(getter(item)) === expect);
}

function doMap(value: unknown, args: unknown[], kwargs: Kwargs): PyGenerator {
  return generator('sync_do_map', value, (items) => mapItems(items, args, kwargs));
}

function mapItems(items: unknown[], args: unknown[], kwargs: Kwargs): unknown[] {
  if (args.length === 0 && kwargs && 'attribute' in kwargs) {
    const getter = attrGetter(kwargs.attribute, undefined, kwargs.default);
    return items.map(getter);
  }
  const name = args[0];
  const filter = typeof name === 'string' && Object.prototype.hasOwnProperty.call(FILTERS, name) ? FILTERS[name] : undefined;
  if (!filter) throw new PyError('TemplateRuntimeError', `No filter named ${pyRepr(name)}.`);
  const rest = args.slice(1);
  return items.map((item) => filter(item, rest, kwargs));
}

function doUnique(value: unknown, args: unknown[], kwargs: Kwargs): unknown[] {
  const caseSensitive = truthy(arg(args, kwargs, 0, 'case_sensitive', false));
  const key = attrKey(arg(args, kwargs, 1, 'attribute', null), caseSensitive);
  // Python's set, by pyEq: strings and plain numbers are filed under a key (every value pyEq calls equal to one has its
  // key), the rest compared one by one, against everything seen. Comparing each item with every one seen before made
  // `range(20000)|list|unique` take 8 s, and 20,000 dicts (which Python refuses) 49 s (found by fuzzing).
  const filed = new Map<string, unknown[]>();
  const loose: unknown[] = [];
  const out: unknown[] = [];
  const equal = (k: unknown) => (s: unknown) => pyEq(s, k);
  for (const item of iterate(value)) {
    const k = key(item);
    // Python's set refuses what it cannot hash, as jinja2's unique does.
    if (isDict(k) || (Array.isArray(k) && !isTuple(k))) throw typeError(`unhashable type: '${pyTypeName(k)}'`);
    const filedUnder = uniqueKey(k);
    let found = loose.some(equal(k));
    if (!found) {
      if (filedUnder === undefined) {
        for (const values of filed.values()) if ((found = values.some(equal(k)))) break;
      } else found = filed.get(filedUnder)?.some(equal(k)) ?? false;
    }
    if (found) continue;
    if (filedUnder === undefined) loose.push(k);
    else {
      const values = filed.get(filedUnder);
      if (values) values.push(k);
      else filed.set(filedUnder, [k]);
    }
    out.push(item);
  }
  return out;
}

/**
 * The key `unique` files a value under: a string (or Markup) by its text, a JS number, a boolean or a float by its
 * number (`1`, `1.0` and `True` are one item, as pyEq says); undefined for anything else (big integers, NaN, lists,
 * dicts), which is compared with every value seen.
 */
function uniqueKey(value: unknown): string | undefined {
  if (typeof value === 'string') return `s${value}`;
  if (value instanceof Markup) return `s${value.text}`;
  const n = typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : value instanceof PyFloat ? value.value : undefined;
  return n === undefined || Number.isNaN(n) ? undefined : `n${n}`;
}

function doGroupby(value: unknown, args: unknown[], kwargs: Kwargs): unknown[] {
  const attribute = arg(args, kwargs, 0, 'attribute', null);
  const fallback = arg(args, kwargs, 1, 'default', null);
  const caseSensitive = truthy(arg(args, kwargs, 2, 'case_sensitive', false));
  const key = attrGetter(attribute, caseSensitive ? undefined : ignoreCase, fallback);
  const output = attrGetter(attribute, undefined, fallback);
  const sorted = sortedBy(iterate(value), key, false);
  const groups: unknown[] = [];
  let current: unknown[] | null = null;
  let currentKey: unknown;
  for (const item of sorted) {
    const k = key(item);
    if (current === null || !pyEq(k, currentKey)) {
      current = [];
      currentKey = k;
      groups.push(current);
    }
    current.push(item);
  }
  return groups.map((list) => makeGroup(output((list as unknown[])[0]), list as unknown[]));
}

const TOJSON_DEFAULTS: DumpOptions = {};

function tojson(value: unknown, args: unknown[], kwargs: Kwargs): string {
  // The form every chat template uses, on every render: no argument to read.
  if (args.length === 0 && kwargs === null) return dumpJson(value, TOJSON_DEFAULTS);
  const ensureAscii = truthy(arg(args, kwargs, 0, 'ensure_ascii', false));
  const indentArg = arg(args, kwargs, 1, 'indent', null);
  const separators = arg(args, kwargs, 2, 'separators', null);
  const sortKeys = truthy(arg(args, kwargs, 3, 'sort_keys', false));
  let indent: string | null = null;
  if (typeof indentArg === 'string') indent = indentArg;
  else if (indentArg !== null && !(indentArg instanceof Undefined)) {
    const width = Math.max(0, Number(truncInt(indentArg) ?? 0));
    chargeChars(width);
    indent = ' '.repeat(width);
  }
  let itemSeparator: string | undefined;
  let keySeparator: string | undefined;
  if (Array.isArray(separators)) {
    [itemSeparator, keySeparator] = separators as [string, string];
  }
  return dumpJson(value, { ensureAscii, indent, itemSeparator, keySeparator, sortKeys });
}

export const FILTERS: Record<string, FilterFn> = {
  tojson,
  string: (v) => pyStr(v),
  safe: (v) => (v instanceof Markup ? v : new Markup(pyStr(v))),
  e: (v) => (v instanceof Markup ? v : new Markup(htmlEscape(pyStr(v)))),
  escape: (v) => (v instanceof Markup ? v : new Markup(htmlEscape(pyStr(v)))),
  forceescape: (v) => new Markup(htmlEscape(pyStr(v))),
  length: (v) => pyLen(v),
  count: (v) => pyLen(v),
  first: (v) => {
    const item = v instanceof PyGenerator ? v.take() : MISSING;
    if (item !== MISSING) return item;
    const items = v instanceof PyGenerator ? [] : iterate(v);
    return items.length > 0 ? items[0] : new Undefined(null, undefined, 'No first item, sequence was empty.');
  },
  last: (v) => {
    // jinja2 takes next(reversed(seq)): only a sequence or a dict can be reversed.
    if (!(typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof Undefined)) throw typeError(`'${pyTypeName(v)}' object is not reversible`);
    const items = iterate(v);
    return items.length > 0 ? items[items.length - 1] : new Undefined(null, undefined, 'No last item, sequence was empty.');
  },
  list: (v) => iterate(v).slice(),
  reverse: (v) => {
    if (typeof v === 'string') return codePoints(v).reverse().join('');
    // jinja2 tries reversed(), then list(): what neither takes is its FilterArgumentError.
    if (!(Array.isArray(v) || isDict(v) || v instanceof PyGenerator || v instanceof Undefined)) throw new PyError('FilterArgumentError', 'argument must be iterable');
    return iterate(v).slice().reverse();
  },
  join: (v, a, k) => {
    const sep = pyStr(arg(a, k, 0, 'd', ''));
    const attribute = arg(a, k, 1, 'attribute', null);
    let items = iterate(v);
    if (attribute !== null) items = items.map(attrGetter(attribute));
    const strings = items.map(pyStr);
    let length = sep.length * Math.max(0, strings.length - 1);
    for (const str of strings) length += str.length;
    chargeChars(length);
    return strings.join(sep);
  },
  map: doMap,
  select: (v, a, k) => selectOrReject(v, a, k, false, true),
  reject: (v, a, k) => selectOrReject(v, a, k, false, false),
  selectattr: (v, a, k) => selectOrReject(v, a, k, true, true),
  rejectattr: (v, a, k) => selectOrReject(v, a, k, true, false),
  unique: doUnique,
  sort: (v, a, k) => {
    const reverse = truthy(arg(a, k, 0, 'reverse', false));
    const caseSensitive = truthy(arg(a, k, 1, 'case_sensitive', false));
    return sortedBy(iterate(v), attrKey(arg(a, k, 2, 'attribute', null), caseSensitive), reverse, true);
  },
  dictsort: (v, a, k) => {
    const caseSensitive = truthy(arg(a, k, 0, 'case_sensitive', false));
    const by = arg(a, k, 1, 'by', 'key');
    const reverse = truthy(arg(a, k, 2, 'reverse', false));
    // jinja2 calls value.items(): anything but a mapping lacks it.
    if (!isDict(v)) throw new PyError('AttributeError', `'${pyTypeName(v)}' object has no attribute 'items'`);
    const pos = by === 'key' ? 0 : by === 'value' ? 1 : -1;
    if (pos === -1) throw new PyError('FilterArgumentError', 'You can only sort by either "key" or "value"');
    const byKey = pos === 0 && !(v instanceof Map) ? sortedByKey(v, caseSensitive, reverse) : undefined;
    if (byKey !== undefined) return byKey;
    const items = dictEntries(v).map((e) => makeTuple(e));
    return sortedBy(items, (item) => {
      const x = (item as unknown[])[pos];
      return caseSensitive ? x : ignoreCase(x);
    }, reverse);
  },
  items: (v) => {
    if (v instanceof Undefined) return [];
    if (!isDict(v)) throw typeError('Can only get item pairs from a mapping.');
    const pairs = dictEntries(v);
    for (let i = 0; i < pairs.length; i++) makeTuple(pairs[i]!);
    return pairs;
  },
  default: (v, a, k) => {
    const fallback = arg(a, k, 0, 'default_value', '');
    const boolean = truthy(arg(a, k, 1, 'boolean', false));
    return v instanceof Undefined || (boolean && !truthy(v)) ? fallback : v;
  },
  int: (v, a, k) => {
    const fallback = arg(a, k, 0, 'default', 0);
    // Python's int(text, base) takes an int or a bool as the base; anything else raises, which do_int catches.
    const baseArg = arg(a, k, 1, 'base', 10);
    const base = typeof baseArg === 'boolean' || typeof baseArg === 'bigint' || (typeof baseArg === 'number' && Number.isInteger(baseArg)) ? Number(baseArg) : NaN;
    if (typeof v === 'string') {
      const n = parsePyInt(v, base);
      if (n !== undefined) return n;
      const f = parsePyFloat(v);
      return f === undefined || !Number.isFinite(f) ? fallback : truncInt(f);
    }
    try {
      return truncInt(v) ?? fallback;
    } catch (error) {
      if (error instanceof PyError && error.pyType === 'ValueError') return fallback;
      throw error;
    }
  },
  float: (v, a, k) => {
    const fallback = arg(a, k, 0, 'default', new PyFloat(0));
    if (typeof v === 'string') {
      const f = parsePyFloat(v);
      return f === undefined ? fallback : makeFloat(f);
    }
    const f = asFloat(v);
    return f === undefined ? fallback : makeFloat(f);
  },
  abs: (v) => {
    const c = compareNumbers(v, 0);
    if (c === undefined) throw typeError(`bad operand type for abs(): '${pyTypeName(v)}'`);
    if (typeof v === 'boolean') return v ? 1 : 0;
    // A float's abs clears its sign bit: abs(-0.0) is 0.0.
    if (v instanceof PyFloat) return makeFloat(Math.abs(v.value));
    return c < 0 ? negate(v) : v;
  },
  round: doRound,
  sum: (v, a, k) => {
    const attribute = arg(a, k, 0, 'attribute', null);
    let total = arg(a, k, 1, 'start', 0);
    let items = iterate(v);
    if (attribute !== null) items = items.map(attrGetter(attribute));
    for (const item of items) total = add(total, item);
    return total;
  },
  min: (v, a, k) => minMax(v, a, k, -1),
  max: (v, a, k) => minMax(v, a, k, 1),
  upper: (v) => pyStr(v).toUpperCase(),
  lower: (v) => pyStr(v).toLowerCase(),
  title: doTitle,
  capitalize: (v) => pyCapitalize(pyStr(v)),
  trim: (v, a, k) => pyStrip(pyStr(v), arg(a, k, 0, 'chars', null), true, true),
  replace: (v, a, k) => {
    const impl = methodImpl('', 'replace') as (s: string, args: unknown[], kwargs: Kwargs) => unknown;
    const count = arg(a, k, 2, 'count', null);
    return impl(pyStr(v), [pyStr(a[0]), pyStr(a[1]), count === null ? -1 : count], null);
  },
  indent: doIndent,
  center: (v, a, k) => {
    const impl = methodImpl('', 'center') as (s: string, args: unknown[], kwargs: Kwargs) => unknown;
    return impl(pyStr(v), [arg(a, k, 0, 'width', 80)], null);
  },
  urlencode: doUrlencode,
  // random.choice: any item, so a template using it renders differently from run to run, in jinja2 as here.
  random: (v) => {
    if (isDict(v)) throw new PyError('KeyError', '0');
    pyLen(v); // random.choice needs a length: an int or a generator is a TypeError
    const items = iterate(v);
    if (items.length === 0) return new Undefined(null, undefined, 'No random item, sequence was empty.');
    return items[Math.floor(Math.random() * items.length)];
  },
  wordcount: (v) => {
    const matches = pyStr(v).match(/[\p{L}\p{N}_]+/gu);
    return matches ? matches.length : 0;
  },
  batch: (v, a, k) => {
    const size = Number(truncInt(arg(a, k, 0, 'linecount', 1)) ?? 1);
    const fill = arg(a, k, 1, 'fill_with', null);
    if (fill !== null) chargeItems(size);
    const out: unknown[][] = [];
    let tmp: unknown[] = [];
    for (const item of iterate(v)) {
      if (tmp.length === size) {
        out.push(tmp);
        tmp = [];
      }
      tmp.push(item);
    }
    if (tmp.length > 0) {
      if (fill !== null) while (tmp.length < size) tmp.push(fill);
      out.push(tmp);
    }
    return out;
  },
  slice: (v, a, k) => {
    const seq = iterate(v);
    const slices = Number(truncInt(arg(a, k, 0, 'slices', 1)) ?? 1);
    const fill = arg(a, k, 1, 'fill_with', null);
    chargeItems(seq.length + slices);
    const perSlice = Math.floor(seq.length / slices);
    const withExtra = seq.length % slices;
    const out: unknown[][] = [];
    let offset = 0;
    for (let i = 0; i < slices; i++) {
      const start = offset + i * perSlice;
      if (i < withExtra) offset++;
      const end = offset + (i + 1) * perSlice;
      const part = seq.slice(start, end);
      if (fill !== null && i >= withExtra) part.push(fill);
      out.push(part);
    }
    return out;
  },
  format: (v, a, k) => {
    if (a.length > 0 && k && Object.keys(k).length > 0) throw new PyError('FilterArgumentError', "can't handle positional and keyword arguments at the same time");
    const params = k && Object.keys(k).length > 0 ? k : makeTuple(a.slice());
    return v instanceof Markup ? new Markup(percentFormat(v.text, params, true)) : percentFormat(pyStr(v), params);
  },
  pprint: (v) => pformat(v),
  groupby: doGroupby,
  striptags: doStriptags,
  truncate: doTruncate,
  wordwrap: doWordwrap,
  attr: (v, a) => {
    const name = pyStr(a[0]);
    const method = methodImpl(v, name);
    if (method === 'unsafe' || (method !== undefined && name.startsWith('_'))) return getAttr(v, name);
    if (method !== undefined) return getAttr(v, name);
    return new Undefined(name, v);
  },
  xmlattr: (v, a, k) => {
    const autospace = truthy(arg(a, k, 0, 'autospace', true));
    if (!isDict(v)) throw new PyError('AttributeError', `'${pyTypeName(v)}' object has no attribute 'items'`);
    const items: string[] = [];
    for (const [key, x] of dictEntries(v)) {
      if (x === null || x instanceof Undefined) continue;
      // jinja2 searches the key with a regex: a key that is not a str is re's TypeError, a space or /, >, = in it a ValueError.
      if (typeof key !== 'string') throw typeError(`expected string or bytes-like object, got '${pyTypeName(key)}'`);
      if (/[\t\n\v\f\r /=>]/.test(key)) throw new PyError('ValueError', `Invalid character in attribute name: ${pyRepr(key)}`);
      items.push(`${htmlEscape(key)}="${x instanceof Markup ? x.text : htmlEscape(pyStr(x))}"`);
    }
    const text = items.join(' ');
    return autospace && text !== '' ? ` ${text}` : text;
  },
  filesizeformat: (v, a, k) => {
    const bytes = asFloat(v) ?? 0;
    const binary = truthy(arg(a, k, 0, 'binary', false));
    const base = binary ? 1024 : 1000;
    const prefixes = binary ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'] : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    if (bytes === 1) return '1 Byte';
    if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
    let unit = base;
    let prefix = prefixes[0]!;
    for (let i = 0; i < prefixes.length; i++) {
      unit = Math.pow(base, i + 2);
      prefix = prefixes[i]!;
      if (bytes < unit) break;
    }
    return `${((base * bytes) / unit).toFixed(1)} ${prefix}`;
  },
};
FILTERS.d = FILTERS.default!;

// Every filter gets one wrapper (not one per concern: each layer was a call on every filter use) that adds:
// - Undefined refused by the jinja2 filters that touch the value in a way Undefined refuses (int(), attribute access);
// - Markup: its text is the input; the MARKUP_KEEPING filters give Markup back (they call its own methods in jinja2),
//   the MARKUP_AWARE ones (safe, escape, forceescape, format, default, pprint) handle Markup themselves;
// - the budget: a new string or list is paid for once built. Each is at most a small multiple of its input, which
//   was paid for (or is the caller's data). The amplifiers (join, indent, center, replace, format, batch, slice) pay
//   before they allocate; tojson pays for its whole output itself (a list repeating one object amplifies).
const REFUSES_UNDEFINED = new Set(['int', 'float', 'indent', 'dictsort', 'attr', 'wordwrap', 'xmlattr', 'filesizeformat']);
const MARKUP_KEEPING = new Set(['upper', 'lower', 'trim', 'string', 'center', 'indent', 'capitalize', 'reverse', 'last', 'truncate']);
const MARKUP_AWARE = new Set(['safe', 'e', 'escape', 'forceescape', 'format', 'default', 'd', 'pprint']);
const PAYS_ITSELF = new Set(['tojson']);
// The filters that visit every item of a list or dict they are given, and may build far less than they read (a
// string given to any filter is read whole). The others take one item, or pay for what they build.
const READS_ITEMS = new Set([
  'sum', 'min', 'max', 'unique', 'map', 'select', 'reject', 'selectattr', 'rejectattr', 'groupby', 'sort', 'dictsort', 'join', 'batch', 'slice',
]);

function chargeItemsRead(value: unknown): void {
  if (Array.isArray(value)) scanItems(value.length);
  else if (isDict(value)) scanItems(dictSize(value));
}

function chargeResult(result: unknown): void {
  if (typeof result === 'string') charge(result.length * BYTES_PER_CHAR);
  else if (result instanceof Markup) charge(result.text.length * BYTES_PER_CHAR);
  else if (Array.isArray(result)) charge(result.length * BYTES_PER_ITEM);
}

function wrapFilter(name: string, inner: FilterFn): FilterFn {
  const python = pythonFilter(name);
  if (python === undefined) throw new Error(`filter ${name} has no Python signature (filter-signatures.ts)`);
  // Python binds the arguments before the filter runs: a call it refuses fails first, whatever the value.
  const { fewest, most, check } = pythonArity(python);
  const refusesUndefined = REFUSES_UNDEFINED.has(name);
  const unwrapsMarkup = !MARKUP_AWARE.has(name);
  const keepsMarkup = MARKUP_KEEPING.has(name);
  const paysItself = PAYS_ITSELF.has(name);
  const readsItems = READS_ITEMS.has(name);
  return (value, args, kwargs) => {
    if (kwargs !== null || args.length < fewest || args.length > most) check(args, kwargs);
    if (typeof value === 'string') scanChars(value.length);
    else if (value instanceof Markup) scanChars(value.text.length);
    else if (readsItems) chargeItemsRead(value);
    let result: unknown;
    if (unwrapsMarkup && value instanceof Markup) {
      result = inner(value.text, args, kwargs);
      if (keepsMarkup && typeof result === 'string') result = new Markup(result);
    } else {
      if (refusesUndefined && value instanceof Undefined) throw undefinedError(value);
      result = inner(value, args, kwargs);
    }
    if (!paysItself && result !== value) chargeResult(result);
    return result;
  };
}

for (const name of Object.keys(FILTERS)) FILTERS[name] = wrapFilter(name, FILTERS[name]!);

export function hasFilter(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(FILTERS, name);
}

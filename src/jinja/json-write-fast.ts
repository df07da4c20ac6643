// The fast path of json.dumps: one lean recursive pass for the values templates serialise on every render (tool
// schemas, call arguments: plain objects, arrays, strings, numbers). It gives up (returns undefined) on anything
// that needs the exact writer's care: Maps, sort_keys, deep nesting (the circular-reference check), values it does
// not know (the exact writer raises Python's TypeError), and outputs big enough that the budget must watch them
// grow. Exactness is checked against the exact writer by property tests.
import { jsonFloat, jsonString } from './json-scalars.js';
import { intStr } from './repr.js';
import { Markup, PyFloat } from './values.js';

/** Deeper values go to the exact writer, whose stack check catches circular references. */
const MAX_DEPTH = 32;
/**
 * Items and leaf characters written before giving up: past these, a value that repeats one shared object many times
 * could grow the output far beyond what the template paid for, so the exact writer (which charges as it writes and
 * reuses a repeated object's text) takes over.
 */
const MAX_ITEMS = 4096;
const MAX_LEAF_CHARS = 1 << 20;
/** Indents and separators longer than this make per-item overhead large: the exact writer charges it per item. */
const MAX_SEPARATOR = 16;

const GIVE_UP: unique symbol = Symbol('give up');

// One pass runs at a time, so its settings live here instead of in a closure. The writer calls no template code;
// only a JS getter in a caller's value could start a second pass inside one, and that pass goes to the exact writer.
let busy = false;
let ascii = false;
let itemSep = ', ';
let keySep = ': ';
let indent: string | null = null;
let newlines: string[] = [];
let items = 0;
let leafChars = 0;

/**
 * Quoted short strings by their text. Dict keys and enum-like values ("type", "string", "object") recur in every
 * tool and every render; a lookup is cheaper than checking and concatenating them again. A direct-mapped table
 * (slot from the length and three characters; a collision just replaces the slot) costs little when strings do not
 * recur, where a Map's hashing and growth made all-new strings 1.7x slower to write. Keys are kept with the key
 * separator appended. Both tables hold one setting's text: a pass with another ensure_ascii or key separator empties
 * them.
 */
const MAX_CACHED_LENGTH = 32;
const SLOTS = 512;
const valueTexts: string[] = new Array<string>(SLOTS).fill('');
const valueQuoted: string[] = new Array<string>(SLOTS).fill('');
const keyTexts: string[] = new Array<string>(SLOTS).fill('');
const keyQuoted: string[] = new Array<string>(SLOTS).fill('');
let cachedAscii = false;
let cachedKeySep = ': ';

/** The table slot of a string of 1 to MAX_CACHED_LENGTH characters. */
function slot(s: string, n: number): number {
  return (n * 31 + s.charCodeAt(0) * 7 + s.charCodeAt(n >> 1) * 3 + s.charCodeAt(n - 1)) & (SLOTS - 1);
}

function forgetQuoted(): void {
  valueTexts.fill('');
  keyTexts.fill('');
}

/** Short strings are checked by a loop (cheaper than a regex call), longer ones by the exact writer's regex. */
function quoteUncached(s: string): string {
  const n = s.length;
  if (n <= 24) {
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92 || (ascii && c > 126)) return jsonString(s, ascii);
    }
    return '"' + s + '"';
  }
  return jsonString(s, ascii);
}

function quote(s: string): string {
  const n = s.length;
  leafChars += n;
  // The empty string never matches a slot: every slot starts (and is reset to) ''.
  if (n > MAX_CACHED_LENGTH || n === 0) return quoteUncached(s);
  const at = slot(s, n);
  if (valueTexts[at] === s) return valueQuoted[at]!;
  const text = quoteUncached(s);
  valueTexts[at] = s;
  valueQuoted[at] = text;
  return text;
}

/** A dict key quoted and followed by the key separator. */
function keyText(key: string): string {
  const n = key.length;
  leafChars += n;
  if (n > MAX_CACHED_LENGTH || n === 0) return quoteUncached(key) + keySep;
  const at = slot(key, n);
  if (keyTexts[at] === key) return keyQuoted[at]!;
  const text = quoteUncached(key) + keySep;
  keyTexts[at] = key;
  keyQuoted[at] = text;
  return text;
}

function number(v: number): string {
  if (Number.isInteger(v)) return intStr(v);
  // JS and Python print the same shortest digits; they choose the same fixed notation from 1e-4 up to 2^53, past
  // which every double is an integer. Below 1e-4 (and NaN, infinities) Python's own rules apply.
  const abs = v < 0 ? -v : v;
  return abs >= 1e-4 && abs < 1e16 ? String(v) : jsonFloat(v);
}

function newline(level: number): string {
  let nl = newlines[level];
  if (nl === undefined) nl = newlines[level] = '\n' + (indent as string).repeat(level);
  return nl;
}

function encode(v: unknown, level: number): string {
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      return number(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return intStr(v);
    case 'object':
      break;
    default:
      throw GIVE_UP;
  }
  if (v === null) return 'null';
  if (level >= MAX_DEPTH) throw GIVE_UP;
  const inner = level + 1;
  const sep = indent === null ? itemSep : itemSep + newline(inner);
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return '[]';
    if ((items += n) > MAX_ITEMS) throw GIVE_UP;
    let out = indent === null ? '[' : '[' + newline(inner);
    for (let i = 0; i < n; i++) {
      const item = v[i];
      if (item === undefined) throw GIVE_UP;
      out += i === 0 ? encode(item, inner) : sep + encode(item, inner);
    }
    return indent === null ? out + ']' : out + newline(level) + ']';
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    if (v instanceof PyFloat) return jsonFloat(v.value);
    if (v instanceof Markup) return quote(v.text);
    throw GIVE_UP;
  }
  const dict = v as Record<string, unknown>;
  let out = '';
  for (const key in dict) {
    const item = dict[key];
    if (item === undefined) continue;
    if (++items > MAX_ITEMS) throw GIVE_UP;
    out += (out === '' ? '' : sep) + keyText(key) + encode(item, inner);
  }
  if (out === '') return '{}';
  return indent === null ? '{' + out + '}' : '{' + newline(inner) + out + newline(level) + '}';
}

/** json.dumps(value) without sort_keys, or undefined when the exact writer must do it. */
export function dumpJsonFast(value: unknown, ensureAscii: boolean, indentText: string | null, itemSeparator: string, keySeparator: string): string | undefined {
  if (itemSeparator.length > MAX_SEPARATOR || keySeparator.length > MAX_SEPARATOR) return undefined;
  if (indentText !== null && indentText.length > MAX_SEPARATOR) return undefined;
  if (busy) return undefined;
  busy = true;
  ascii = ensureAscii;
  itemSep = itemSeparator;
  keySep = keySeparator;
  if (indent !== indentText) newlines = [];
  indent = indentText;
  if (ascii !== cachedAscii || keySep !== cachedKeySep) {
    forgetQuoted();
    cachedAscii = ascii;
    cachedKeySep = keySep;
  }
  items = 0;
  leafChars = 0;
  try {
    const out = encode(value, 0);
    return leafChars > MAX_LEAF_CHARS ? undefined : out;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  } finally {
    busy = false;
  }
}

// json.dumps as transformers' tojson calls it. Plain values take the fast path (json-write-fast.ts); the exact writer
// below handles everything: Maps, sort_keys, every Python type error, circular references, and outputs of any size,
// which it pays for in the render budget as it writes them.
import { chargeChars } from './budget.js';
import { PyError, typeError } from './errors.js';
import { dumpJsonFast } from './json-write-fast.js';
import { jsonFloat, jsonString, keyString } from './json-scalars.js';
import { pyCompare } from './ops.js';
import { intStr } from './repr.js';
import { pythonSort } from './sort.js';
import { Markup, PyFloat, isDict, dictEntries, pyTypeName } from './values.js';

export interface DumpOptions {
  ensureAscii?: boolean;
  indent?: string | null;
  itemSeparator?: string;
  keySeparator?: string;
  sortKeys?: boolean;
}

/** Python json.dumps(value, ensure_ascii, indent, separators, sort_keys). Inside a render, the output is charged. */
export function dumpJson(value: unknown, options: DumpOptions = {}): string {
  const ensureAscii = options.ensureAscii ?? false;
  const indent = options.indent ?? null;
  const itemSep = options.itemSeparator ?? (indent === null ? ', ' : ',');
  const keySep = options.keySeparator ?? ': ';
  if (!options.sortKeys) {
    const fast = dumpJsonFast(value, ensureAscii, indent, itemSep, keySep);
    if (fast !== undefined) {
      // Bounded by the fast path's item and character caps, so paying after building is safe.
      chargeChars(fast.length);
      return fast;
    }
  }
  return dumpJsonExact(value, ensureAscii, indent, itemSep, keySep, options.sortKeys ?? false);
}

function dumpJsonExact(value: unknown, ensureAscii: boolean, indent: string | null, itemSep: string, keySep: string, sortKeys: boolean): string {
  const stack: unknown[] = [];
  // A container met again (a list repeating one object) reuses its text, paying its length again: a value that
  // nests repeats fails the budget as fast as it grows instead of being walked item by item.
  const written = new Map<unknown, { level: number; text: string }>();
  const newlines: string[] = [];
  const newline = (level: number): string => {
    let nl = newlines[level];
    if (nl === undefined) {
      chargeChars((indent as string).length * level);
      nl = newlines[level] = '\n' + (indent as string).repeat(level);
    }
    return nl;
  };
  const leaf = (text: string): string => {
    chargeChars(text.length);
    return text;
  };

  const encode = (v: unknown, level: number): string => {
    switch (typeof v) {
      case 'string':
        return leaf(jsonString(v, ensureAscii));
      case 'boolean':
        return v ? 'true' : 'false';
      case 'number':
        return leaf(Number.isInteger(v) ? intStr(v) : jsonFloat(v));
      case 'bigint':
        return leaf(intStr(v));
    }
    if (v === null) return 'null';
    if (v instanceof PyFloat) return leaf(jsonFloat(v.value));
    if (v instanceof Markup) return leaf(jsonString(v.text, ensureAscii));
    const isList = Array.isArray(v);
    if (!isList && !isDict(v)) throw typeError(`Object of type ${pyTypeName(v)} is not JSON serializable`);
    const seen = written.get(v);
    if (seen !== undefined && seen.level === level) return leaf(seen.text);
    if (stack.includes(v)) throw new PyError('ValueError', 'Circular reference detected');
    const sep = indent === null ? itemSep : itemSep + newline(level + 1);
    const perItem = sep.length + keySep.length;
    let out = '';
    let first = true;
    stack.push(v);
    if (isList) {
      for (let i = 0; i < v.length; i++) {
        chargeChars(perItem);
        out += (first ? '' : sep) + encode(v[i], level + 1);
        first = false;
      }
    } else if (!sortKeys && !(v instanceof Map)) {
      for (const key in v) {
        const item = v[key];
        if (item === undefined) continue;
        chargeChars(perItem);
        out += (first ? '' : sep) + leaf(jsonString(key, ensureAscii)) + keySep + encode(item, level + 1);
        first = false;
      }
    } else {
      // json.dumps sorts the dict's own items, then writes each key as text: 2 before 10, and keys Python cannot
      // order against each other (1 and 'a') are its TypeError.
      const entries = dictEntries(v);
      if (sortKeys) pythonSort(entries, (a, b) => pyCompare(a[0], b[0], '<') < 0);
      const keyed: Array<[string, unknown]> = [];
      for (const [k, item] of entries) {
        const key = keyString(k);
        if (key === undefined) throw typeError(`keys must be str, int, float, bool or None, not ${pyTypeName(k)}`);
        keyed.push([key, item]);
      }
      for (const [key, item] of keyed) {
        chargeChars(perItem);
        out += (first ? '' : sep) + leaf(jsonString(key, ensureAscii)) + keySep + encode(item, level + 1);
        first = false;
      }
    }
    stack.pop();
    const [open, close] = isList ? ['[', ']'] : ['{', '}'];
    let text: string;
    if (first) text = open + close;
    else if (indent === null) text = open + out + close;
    else text = open + newline(level + 1) + out + newline(level) + close;
    if (seen === undefined) written.set(v, { level, text });
    return text;
  };
  return encode(value, 0);
}

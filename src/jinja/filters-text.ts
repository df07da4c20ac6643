// Text filters: escape, indent, title, truncate, striptags, urlencode.
import { chargeChars } from './budget.js';
import { arg, type Kwargs } from './filter-args.js';
import { htmlEscape } from './markup.js';
import { pySplitlines } from './methods.js';
import { truncInt } from './numbers.js';
import { pyStr } from './repr.js';
import { PyError, typeError } from './errors.js';
import { add, compareOp, iterate, pyLen, repeatCount } from './ops.js';
import { codePoints, dictEntries, isDict, isNumeric, isPySpace, pyTypeName, truthy } from './values.js';

export function doIndent(value: unknown, args: unknown[], kwargs: Kwargs): string {
  const width = arg(args, kwargs, 0, 'width', 4);
  const first = truthy(arg(args, kwargs, 1, 'first', false));
  const blank = truthy(arg(args, kwargs, 2, 'blank', false));
  const widthChars = typeof width === 'string' ? width.length : Math.max(0, Number(truncInt(width) ?? 0));
  const s = pyStr(value) + '\n';
  const lines = pySplitlines(s, false);
  chargeChars(s.length + (lines.length + 1) * widthChars);
  const indention = typeof width === 'string' ? width : ' '.repeat(widthChars);
  let rv: string;
  if (blank) rv = lines.join('\n' + indention);
  else {
    rv = lines.shift() ?? '';
    if (lines.length > 0) rv += '\n' + lines.map((line) => (line ? indention + line : line)).join('\n');
  }
  return first ? indention + rv : rv;
}

/**
 * jinja2's title filter: each word (split at white space and `-({[<`) gets its first character upper-cased and the
 * rest lowered as one string, so a final sigma is decided within the word (not Python's str.title).
 */
export function doTitle(value: unknown): string {
  const text = pyStr(value);
  let out = '';
  let wordStart = -1;
  const endWord = (end: number) => {
    if (wordStart < 0) return;
    const first = String.fromCodePoint(text.codePointAt(wordStart)!);
    out += first.toUpperCase() + text.slice(wordStart + first.length, end).toLowerCase();
    wordStart = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isPySpace(c) || c === 0x2d || c === 0x28 || c === 0x7b || c === 0x5b || c === 0x3c) {
      endWord(i);
      out += text[i];
    } else if (wordStart < 0) wordStart = i;
  }
  endWord(text.length);
  return out;
}

/** jinja2's do_truncate, step by step: its two assertions, then the length test, which returns the value itself. */
export function doTruncate(value: unknown, args: unknown[], kwargs: Kwargs): unknown {
  const length = arg(args, kwargs, 0, 'length', 255);
  const killwords = truthy(arg(args, kwargs, 1, 'killwords', false));
  const end = arg(args, kwargs, 2, 'end', '...');
  // None means the environment's `truncate.leeway` policy, 5 by default.
  const leeway = arg(args, kwargs, 3, 'leeway', null) ?? 5;
  const endLength = pyLen(end);
  if (!compareOp('>=', length, endLength)) throw new PyError('AssertionError', `expected length >= ${endLength}, got ${pyStr(length)}`);
  if (!compareOp('>=', leeway, 0)) throw new PyError('AssertionError', `expected leeway >= 0, got ${pyStr(leeway)}`);
  if (compareOp('<=', pyLen(value), add(length, leeway))) return value;
  const bound = repeatCount(length);
  if (bound === undefined) throw typeError('slice indices must be integers or None or have an __index__ method');
  const keep = bound - endLength;
  if (typeof value !== 'string') {
    // Python slices the sequence, then fails joining it to the end or splitting it at a space.
    if (killwords) throw typeError(`can only concatenate ${pyTypeName(value)} (not "${pyTypeName(end)}") to ${pyTypeName(value)}`);
    throw new PyError('AttributeError', `'${pyTypeName(value)}' object has no attribute 'rsplit'`);
  }
  if (typeof end !== 'string') throw typeError(`can only concatenate str (not "${pyTypeName(end)}") to str`);
  const head = codePoints(value).slice(0, Math.max(0, keep)).join('');
  if (killwords) return head + end;
  const at = head.lastIndexOf(' ');
  return (at === -1 ? head : head.slice(0, at)) + end;
}

export function doStriptags(value: unknown): string {
  let s = pyStr(value);
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end === -1) break;
      i = end + 3;
    } else if (s[i] === '<') {
      const end = s.indexOf('>', i + 1);
      if (end === -1) {
        out += s.slice(i);
        break;
      }
      i = end + 1;
    } else {
      const next = s.indexOf('<', i);
      const stop = next === -1 ? s.length : next;
      out += s.slice(i, stop);
      i = stop;
    }
  }
  s = out.replace(/&(amp|lt|gt|quot|#39|#34);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#34': '"' })[e] ?? _);
  const words: string[] = [];
  let start = -1;
  for (let j = 0; j <= s.length; j++) {
    const space = j === s.length || isPySpace(s.charCodeAt(j));
    if (!space && start === -1) start = j;
    else if (space && start !== -1) {
      words.push(s.slice(start, j));
      start = -1;
    }
  }
  return words.join(' ');
}


export { htmlEscape };

/**
 * Python's urllib quote of a value's UTF-8 bytes, as jinja2's url_quote calls it: letters, digits and `_.-~` stay,
 * `/` stays outside a query string, and a query string writes a space as `+`.
 */
function urlQuote(value: unknown, forQuery: boolean): string {
  let quoted: string;
  try {
    quoted = encodeURIComponent(pyStr(value));
  } catch {
    throw new PyError('UnicodeEncodeError', "'utf-8' codec can't encode a surrogate: surrogates not allowed");
  }
  // encodeURIComponent keeps `!'()*` as they are; Python's quote escapes them.
  quoted = quoted.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return forQuery ? quoted.replace(/%20/g, '+') : quoted.replace(/%2F/g, '/');
}

/** jinja2's urlencode: a string (or any value that is not iterable) quoted; a dict or a list of pairs as a query string. */
export function doUrlencode(value: unknown): string {
  if (typeof value === 'string' || value === null || typeof value !== 'object' || isNumeric(value)) return urlQuote(value, false);
  const pairs = isDict(value) ? dictEntries(value) : iterate(value);
  return pairs
    .map((pair) => {
      const items = iterate(pair);
      if (items.length !== 2) throw new PyError('ValueError', `${items.length < 2 ? 'not enough' : 'too many'} values to unpack (expected 2${items.length < 2 ? `, got ${items.length}` : ''})`);
      return `${urlQuote(items[0], true)}=${urlQuote(items[1], true)}`;
    })
    .join('&');
}

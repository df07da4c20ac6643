// A JSON reader that keeps Python's number model (json.loads). The writer (json.dumps, tojson) is json-write.ts.
import { PyFloat, isArrayIndexKey } from './values.js';
import { jsonStringEnd } from '../util/json-string.js';

export { dumpJson, type DumpOptions } from './json-write.js';

class JsonSyntaxError extends SyntaxError {}

/** JSON text nested deeper than json.loads goes (Python raises RecursionError near 1,000 levels). */
export class JsonNestingError extends JsonSyntaxError {}
export const MAX_JSON_DEPTH = 1000;

/**
 * Parses JSON keeping Python's json.loads semantics: `1.0` stays a float (PyFloat), integers beyond
 * 2^53 become bigint, and objects with integer-like keys become Maps so key order is kept.
 */
export function parsePythonJson(text: string): unknown {
  // Most inputs hold nothing where JSON.parse and json.loads differ; the native parser is several times faster.
  if (!needsPythonReader(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Invalid JSON: the reader below reports the error in its own words.
    }
  }
  return readPythonJson(text);
}

const MAX_FAST_DEPTH = 900;

/**
 * Whether text holds something JSON.parse would read differently from json.loads: an integral float literal
 * (`1.0`, `1e3`), an integer beyond 2^53, an object key JS objects would reorder ("10"), NaN/Infinity, or
 * nesting deep enough for json.loads' recursion limit. Errs towards true.
 */
export function needsPythonReader(text: string): boolean {
  // Most rows are strings, short integers and punctuation: one regular-expression pass (native code) clears them,
  // where the scan below runs JavaScript per token and, in a short run, mostly unoptimised. Anything else (a float, a
  // string key that starts with a digit or an escape, a capital letter outside strings, many brackets) gets the scan.
  const plain = text.length <= MAX_PLAIN_TEST_CHARS && plainTokensUpTo(text) === text.length;
  if (plain && (text.length <= 2 * MAX_FAST_DEPTH || openingBrackets(text, MAX_FAST_DEPTH) <= MAX_FAST_DEPTH)) return false;
  return scanForPythonOnly(text);
}

/**
 * Tokens JSON.parse reads as json.loads does, from the start: a string that is not a key starting with a digit or an
 * escape (JS objects move integer-like keys first), characters that start no number and no name but true/false/null,
 * an integer of at most 15 digits with no fraction or exponent after it. Strings are matched whole from their opening
 * quote, so their content never counts. Nothing follows the loop, so the match ends at the first other token without
 * backtracking, in linear time on any input (a `$` after it made a failing row walk every token back: 0.4 s a MB).
 */
const PLAIN_TOKENS = new RegExp(
  [
    String.raw`(?:"(?![\d\\])[^"\\]*(?:\\[^][^"\\]*)*"`,
    String.raw`"(?=[\d\\])[^"\\]*(?:\\[^][^"\\]*)*"(?!\s*:)`,
    String.raw`[^"NI\d-]+`,
    String.raw`(?:-(?:0|[1-9]\d{0,13})|0|[1-9]\d{0,14})(?![\d.eE]))*`,
  ].join('|'),
  'y',
);

/** Where the plain tokens at the start of text end (the expression always matches, if only the empty string). */
function plainTokensUpTo(text: string): number {
  PLAIN_TOKENS.lastIndex = 0;
  PLAIN_TOKENS.test(text);
  return PLAIN_TOKENS.lastIndex;
}

/**
 * Opening brackets in text, strings included, counted up to just past `max`: an upper bound of the nesting depth. (A
 * regular expression counting them fails on every row that is not deep, and failing walks all its matches back.)
 */
function openingBrackets(text: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1 && count <= max; at = text.indexOf('{', at + 1)) count++;
  for (let at = text.indexOf('['); at !== -1 && count <= max; at = text.indexOf('[', at + 1)) count++;
  return count;
}

/** Past this the expression's record of its matches (one entry per token) grows large: the scan takes such rows. */
const MAX_PLAIN_TEST_CHARS = 1 << 18;

/** needsPythonReader's answer token by token, exactly: strings skipped with indexOf, numbers read and checked. */
function scanForPythonOnly(text: string): boolean {
  const n = text.length;
  let depth = 0;
  let pos = 0;
  while (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === 34) {
      const end = jsonStringEnd(text, pos);
      if (end === -1) return true;
      // An integer-like key starts with a digit, or with an escape that may decode to one.
      const first = text.charCodeAt(pos + 1);
      if (((first >= 48 && first <= 57) || first === 92) && isKeyAt(text, end + 1)) return true;
      pos = end + 1;
    } else if ((c >= 48 && c <= 57) || c === 45) {
      const start = pos;
      let isFloat = false;
      pos++;
      for (; pos < n; pos++) {
        const d = text.charCodeAt(pos);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) isFloat = true;
        else break;
      }
      if (isFloat ? Number.isInteger(Number(text.slice(start, pos))) : pos - start > 15) return true;
    } else if (c === 123 || c === 91) {
      if (++depth > MAX_FAST_DEPTH) return true;
      pos++;
    } else if (c === 125 || c === 93) {
      depth--;
      pos++;
    } else if (c === 78 || c === 73) {
      return true; // NaN, Infinity
    } else {
      pos++;
    }
  }
  return false;
}

function isKeyAt(text: string, pos: number): boolean {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 58) return true;
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
    pos++;
  }
  return false;
}

function readPythonJson(text: string): unknown {
  let pos = 0;
  const n = text.length;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`);
  };
  const skipWs = () => {
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
      else break;
    }
  };
  const parseString = (): string => {
    pos++; // opening quote
    let out = '';
    let start = pos;
    for (;;) {
      if (pos >= n) fail('Unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 34) {
        out += text.slice(start, pos);
        pos++;
        return out;
      }
      if (c === 92) {
        out += text.slice(start, pos);
        const e = text[pos + 1];
        if (e === 'u') {
          const hex = text.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          pos += 6;
        } else {
          const map: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          const r = e === undefined ? undefined : map[e];
          if (r === undefined) fail('Invalid escape');
          out += r;
          pos += 2;
        }
        start = pos;
        continue;
      }
      if (c < 32) fail('Invalid control character');
      pos++;
    }
  };
  const parseNumber = (): unknown => {
    const start = pos;
    if (text[pos] === '-') pos++;
    const digitsFrom = pos;
    while (pos < n && text.charCodeAt(pos) >= 48 && text.charCodeAt(pos) <= 57) pos++;
    if (pos === digitsFrom) fail('Invalid number');
    if (text[digitsFrom] === '0' && pos - digitsFrom > 1) fail('Invalid number');
    let isFloat = false;
    if (text[pos] === '.') {
      isFloat = true;
      pos++;
      const f = pos;
      while (pos < n && text.charCodeAt(pos) >= 48 && text.charCodeAt(pos) <= 57) pos++;
      if (pos === f) fail('Invalid number');
    }
    if (text[pos] === 'e' || text[pos] === 'E') {
      isFloat = true;
      pos++;
      if (text[pos] === '+' || text[pos] === '-') pos++;
      const f = pos;
      while (pos < n && text.charCodeAt(pos) >= 48 && text.charCodeAt(pos) <= 57) pos++;
      if (pos === f) fail('Invalid number');
    }
    const raw = text.slice(start, pos);
    if (isFloat) {
      const v = Number(raw);
      return Number.isInteger(v) ? new PyFloat(v) : v;
    }
    const v = Number(raw);
    return Number.isSafeInteger(v) ? v : BigInt(raw);
  };
  const parseValue = (depth: number): unknown => {
    if (depth > MAX_JSON_DEPTH) throw new JsonNestingError(`Nesting too deep (over ${MAX_JSON_DEPTH} levels) at position ${pos}`);
    skipWs();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: Array<[string, unknown]> = [];
      let intLike = false;
      skipWs();
      if (text[pos] === '}') {
        pos++;
        return {};
      }
      for (;;) {
        skipWs();
        if (text[pos] !== '"') fail('Expected property name');
        const key = parseString();
        if (isArrayIndexKey(key)) intLike = true;
        skipWs();
        if (text[pos] !== ':') fail("Expected ':'");
        pos++;
        entries.push([key, parseValue(depth + 1)]);
        skipWs();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          break;
        }
        fail("Expected ',' or '}'");
      }
      if (intLike) return new Map<unknown, unknown>(entries);
      const obj: Record<string, unknown> = {};
      for (const [key, value] of entries) {
        if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        else obj[key] = value;
      }
      return obj;
    }
    if (c === '[') {
      pos++;
      const items: unknown[] = [];
      skipWs();
      if (text[pos] === ']') {
        pos++;
        return items;
      }
      for (;;) {
        items.push(parseValue(depth + 1));
        skipWs();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return items;
        }
        fail("Expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith('-Infinity', pos)) return (pos += 9), -Infinity;
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return parseNumber();
    if (text.startsWith('true', pos)) return (pos += 4), true;
    if (text.startsWith('false', pos)) return (pos += 5), false;
    if (text.startsWith('null', pos)) return (pos += 4), null;
    if (text.startsWith('NaN', pos)) return (pos += 3), NaN;
    if (text.startsWith('Infinity', pos)) return (pos += 8), Infinity;
    return fail('Unexpected token');
  };
  const value = parseValue(0);
  skipWs();
  if (pos < n) fail('Unexpected data after JSON');
  return value;
}

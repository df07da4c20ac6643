// Rows of a dataset that carry the same "tools" text as an earlier row: an agent dataset repeats one tool list on
// every row, and that list is the costliest part of a row both to parse (a tree of small objects: on the bench's
// rows it is a third of the bytes and three fifths of JSON.parse's time) and to render. Its text is parsed once and
// its value frozen and shared (shareJson), so block reuse keys it in constant time. A later row is parsed with a
// stand-in where the text sits, which proves that the text is the row's top-level tools (below); a row the proof does
// not cover is parsed whole, as every row was before.
//
// The proof. The stand-in is the JSON string "\u0000". A row holding no `\u0000` escape has no other token that reads
// as that string (JSON strings cannot hold a raw NUL), so if the row with the stand-in in place of the text parses to
// an object whose "tools" is that string, the stand-in stood where the top-level tools value is read (the last such
// key, as JSON.parse keeps the last). The known text starts with `[` or `{` and parses alone, so it is one whole value
// there too: the row parses to the same object with that value as its tools.
import { needsPythonReader, parsePythonJson, shareJson } from '../jinja/index.js';
import { isPlainObject } from '../util/guards.js';
import { jsonStringEnd } from '../util/json-string.js';

const STAND_IN = '"\\u0000"';
/** A row parsed whole learns its tools text at most this many rows after the last try, if tries keep failing. */
const MAX_BACKOFF = 64;
/** Tools texts remembered: a dataset that interleaves a few agents' tool lists still finds each. */
const KNOWN = 4;
/** Shorter tools texts save little, and occur by chance (`[]`), each time costing a row two parses. */
const MIN_CHARS = 32;
/**
 * Longer ones are not kept: what is remembered stays small whatever the rows hold (shareJson bounds a value's content,
 * not the spaces between).
 */
const MAX_CHARS = 1 << 20;
/** Occurrences of `"tools"` tried when learning, so a row full of them costs a bounded scan. */
const MAX_CANDIDATES = 4;

interface KnownTools {
  /** The tools value's text, as the row it was learned from spells it. */
  raw: string;
  /** JSON.parse of raw, deep-frozen and shared. */
  value: object;
  /** Rows it was found in. */
  found: number;
}

/** A reader of one stream of rows (it remembers recent tools texts); each call parses one row as parsePythonJson does. */
export function repeatedToolsReader(): (text: string) => unknown {
  const known: KnownTools[] = [];
  let untilLearn = 0;
  let backoff = 1;
  return (text) => {
    for (let i = 0; i < known.length; i++) {
      const at = text.indexOf(known[i]!.raw);
      if (at === -1) continue;
      // A row only the exact reader reads as jinja2 would (`1.0`, a key like "10") is read by it; the text stays known.
      if (text.includes('\\u0000') || needsPythonReader(text)) return parsePythonJson(text);
      const row = withKnownTools(text, at, known[i]!);
      if (row !== undefined) {
        known[i]!.found++;
        backoff = 1;
        return row;
      }
      // The text is there but not as the row's tools: learned from elsewhere in its row, it would cost every later
      // row two parses.
      known.splice(i, 1);
      return parsePythonJson(text);
    }
    const row = parsePythonJson(text);
    if (untilLearn > 0) {
      untilLearn--;
    } else {
      // Learning costs a scan and a parse of the tools text; rows whose tools differ each time make it wait longer.
      const learned = learn(text, row);
      if (learned !== undefined) {
        // A text no row has repeated since it was learned is dropped for the new one: rows whose tools all differ
        // search for one text, not four.
        if (known.length > 0 && known[0]!.found === 0) known.shift();
        if (known.unshift(learned) > KNOWN) known.pop();
      }
      untilLearn = backoff - 1;
      backoff = Math.min(backoff * 2, MAX_BACKOFF);
    }
    return row;
  };
}

/**
 * The row read with the known tools text at `at` as its shared value, or undefined where the proof does not hold (the
 * row holds no `\u0000` escape and needs no exact reader: the caller has checked).
 */
function withKnownTools(text: string, at: number, known: KnownTools): Record<string, unknown> | undefined {
  let row: unknown;
  try {
    row = JSON.parse(text.slice(0, at) + STAND_IN + text.slice(at + known.raw.length));
  } catch {
    return undefined;
  }
  if (!isPlainObject(row) || row.tools !== '\u0000') return undefined;
  row.tools = known.value;
  return row;
}

/** The tools text of a row parsed whole, if it has a list or object there that can be shared. */
function learn(text: string, row: unknown): KnownTools | undefined {
  if (!isPlainObject(row) || row.tools === null || typeof row.tools !== 'object') return undefined;
  let from = 0;
  for (let tries = 0; tries < MAX_CANDIDATES; tries++) {
    const key = text.indexOf('"tools"', from);
    if (key === -1) return undefined;
    from = key + 7;
    const start = valueStart(text, from);
    if (start === -1) continue;
    const end = valueEnd(text, start);
    if (end === -1) return undefined;
    if (end - start < MIN_CHARS || end - start > MAX_CHARS) continue;
    const raw = text.slice(start, end);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    // A candidate that is not the top-level tools fails the proof on the next row and is forgotten. The text is kept
    // as a copy: a slice would keep its whole row (however long) alive.
    if (value !== null && typeof value === 'object' && shareJson(value)) return { raw: ` ${raw}`.slice(1), value, found: 0 };
  }
  return undefined;
}

/** Where a list or object value after `"tools"` at `from` starts (`: [` with JSON whitespace), or -1. */
function valueStart(text: string, from: number): number {
  let at = skipSpace(text, from);
  if (text.charCodeAt(at) !== 0x3a) return -1;
  at = skipSpace(text, at + 1);
  const c = text.charCodeAt(at);
  return c === 0x5b || c === 0x7b ? at : -1;
}

function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
    at++;
  }
}

/** The end of the bracketed value at `start` (strings skipped), or -1; JSON.parse checks the text between. */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === 0x22) {
      at = jsonStringEnd(text, at);
      if (at === -1) return -1;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
    } else if ((c === 0x5d || c === 0x7d) && --depth === 0) {
      return at + 1;
    }
  }
  return -1;
}

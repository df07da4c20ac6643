// Sticky regexes that read runs of JSON text natively for JsonValueScanner (json-scan.ts), which keeps the state.

/**
 * A run of valid string content: plain characters and complete escapes. Per-character JS loops were
 * the parser's hot spot (code arguments hold an escape every few characters, which defeats an
 * indexOf/character-class search too); one sticky match per string runs near JSON.parse speed.
 * Linear: the alternatives start with disjoint characters and nothing follows the star, so the
 * engine never backtracks. It always matches (possibly empty).
 */
const STRING_CONTENT = String.raw`(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))`;
export const STRING_RUN = new RegExp(`${STRING_CONTENT}*`, 'y');

// Whole object members and array items with a plain value (string, number, literal), each with the `,` after it or
// before the closing bracket, in one sticky match. The first parse in a fresh process runs the scanner's state loop in
// V8's unoptimised tiers, where every character between tokens costs a dispatch; a run of members read natively
// leaves the loop only nested values and what a chunk cut. Exact: only complete, valid tokens match (a number needs
// the character after it), so the loop sees the same state as if it had read them, and text that does not match is
// read by the loop, which reports any error where it did before. Linear: every quantified piece stops at a
// character its successor needs and cannot take (a string body at `"`, digits at a non-digit, white space at a
// non-space), so a failing member backtracks only inside itself, and nothing follows the outer star, so a match
// never returns into members already read. Failing members are then read by the loop, so no text is tried twice.
//
// Strings in a run are plain (no escape) and a value string is short: irregexp reads escapes inside this larger
// pattern, and backs out of a long string, far slower than STRING_RUN alone, which a warm parse of long code arguments
// felt (20% on the JSON families). A plain character class under a bounded or open star backs out by stepping back,
// cheaply. A member whose value is a longer string, or holds an escape, ends the run; STRING_VALUE_OPEN then takes its
// key, colon and opening quote, and STRING_RUN the value itself. A key with an escape is left to the state loop.
const WS = String.raw`[ \t\n\r]*`;
const PLAIN_CHAR = String.raw`[^"\\\u0000-\u001f]`;
const KEY = `"${PLAIN_CHAR}*"`;
const SHORT_STRING = 64;
const PLAIN_VALUE = String.raw`(?:"${PLAIN_CHAR}{0,${SHORT_STRING}}"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?=[ \t\n\r,\]}])|true|false|null)`;
export const MEMBER_RUN = new RegExp(String.raw`(?:${WS}${KEY}${WS}:${WS}${PLAIN_VALUE}${WS}(?:,|(?=\})))*`, 'y');
export const ITEM_RUN = new RegExp(String.raw`(?:${WS}${PLAIN_VALUE}${WS}(?:,|(?=\])))*`, 'y');
/** An object member up to the opening quote of its string value: what the state loop needs to read that value. */
export const STRING_VALUE_OPEN = new RegExp(String.raw`${WS}${KEY}${WS}:${WS}"`, 'y');
/**
 * A whole JSON string without escapes or control characters, quotes included: its value is the text between them.
 * Linear: one character class under a star, stopped by the `"` it excludes.
 */
export const PLAIN_STRING = new RegExp(KEY, 'y');

/** End (after the closing quote) of the plain string (PLAIN_STRING) at `buf[pos]`, or -1 when there is none. */
export function plainStringEnd(buf: string, pos: number): number {
  PLAIN_STRING.lastIndex = pos;
  return PLAIN_STRING.test(buf) ? PLAIN_STRING.lastIndex : -1;
}

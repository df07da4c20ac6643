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
const WS = String.raw`[ \t\n\r]*`;
const STRING_TOKEN = String.raw`"${STRING_CONTENT}*"`;
const PLAIN_VALUE = String.raw`(?:${STRING_TOKEN}|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?=[ \t\n\r,\]}])|true|false|null)`;
export const MEMBER_RUN = new RegExp(String.raw`(?:${WS}${STRING_TOKEN}${WS}:${WS}${PLAIN_VALUE}${WS}(?:,|(?=\})))*`, 'y');
export const ITEM_RUN = new RegExp(String.raw`(?:${WS}${PLAIN_VALUE}${WS}(?:,|(?=\])))*`, 'y');

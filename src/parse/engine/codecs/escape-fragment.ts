// JSON string escaping of the value fragments the raw-text argument codecs (tagged XML-like arguments, Gemma's
// object notation) stream out: the same bytes JSON.stringify writes, at a fraction of a native call per small chunk.
import { jsonStringFragment } from '../../args/coerce.js';
import { parseWork } from '../work.js';

/** Longer fragments go straight to JSON.stringify (native), which then wins. */
const SHORT_FRAGMENT = 48;

/** JSON.stringify's escape of each character it escapes below code 93 (quote, backslash, controls), by code. */
const ESCAPES: (string | undefined)[] = [];
for (let c = 0; c < 93; c++) {
  const escaped = jsonStringFragment(String.fromCharCode(c));
  if (escaped.length > 1) ESCAPES[c] = escaped;
}

/** Fragments up to this long are searched by a loop: a regex call costs more than a few characters. */
const TINY_FRAGMENT = 8;

/** What JSON escapes (quote, backslash, controls) and what needs the whole text (a surrogate, paired or not). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON escaping of a string value's fragment. Streamed in small chunks, most fragments need no escaping, and
 * checking that is far cheaper than a JSON.stringify call per chunk; a short fragment that does need it is escaped
 * here from JSON.stringify's own table (a native call per 4-byte push was the tagged families' hot spot). The check
 * is a native search past a few characters: a first parse runs this in V8's unoptimised tiers, where a loop per
 * character is what costs.
 */
export function escapeFragment(text: string): string {
  if (text.length > SHORT_FRAGMENT) {
    parseWork.escapesBuilt++;
    return JSON.stringify(text).slice(1, -1);
  }
  if (text.length > TINY_FRAGMENT) {
    const at = text.search(NEEDS_ESCAPE);
    if (at < 0) return text;
    parseWork.escapesBuilt++;
    return escapeShort(text, at);
  }
  const at = firstToEscape(text);
  return at < 0 ? text : escapeTiny(text, at);
}

/** Slots of the cache of escaped tiny fragments (a power of two). */
const TINY_SLOTS = 1024;
const tinyKeys: string[] = new Array<string>(TINY_SLOTS).fill('');
const tinyEscaped: string[] = new Array<string>(TINY_SLOTS).fill('');

/**
 * A tiny fragment that needs escaping, through a direct-mapped cache: streamed a token or a few bytes at a time, code
 * arguments repeat the same few (`", "`, `\n    `, `("`), and building the escaped copy (two or three short strings)
 * cost more than the rest of the push. The slot is a hash of the code units; a slot holds the last fragment put there.
 */
function escapeTiny(text: string, at: number): string {
  let hash = text.length;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  const slot = (hash ^ (hash >>> 10)) & (TINY_SLOTS - 1);
  if (tinyKeys[slot] === text) {
    parseWork.escapesCached++;
    return tinyEscaped[slot]!;
  }
  parseWork.escapesBuilt++;
  const escaped = escapeShort(text, at);
  tinyKeys[slot] = text;
  tinyEscaped[slot] = escaped;
  return escaped;
}

function firstToEscape(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c < 32 || (c >= 0xd800 && c <= 0xdfff)) return i;
  }
  return -1;
}

/** `text` escaped from `from` on, where the first character to escape is; surrogates go to JSON.stringify. */
function escapeShort(text: string, from: number): string {
  // Runs between escapes are copied as slices: one concatenation per escape, not one per character.
  let out = '';
  let copied = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return jsonStringFragment(text);
    const escaped = c < 93 ? ESCAPES[c] : undefined;
    if (escaped === undefined) continue;
    out += i > copied ? text.slice(copied, i) + escaped : escaped;
    copied = i + 1;
  }
  return copied < text.length ? out + text.slice(copied) : out;
}

// Harmony's special tokens as they appear in text decoded with special tokens kept (FORMATS §0.1, §4).

export const START = '<|start|>';
export const END = '<|end|>';
export const MESSAGE = '<|message|>';
export const CHANNEL = '<|channel|>';
export const CONSTRAIN = '<|constrain|>';
export const RETURN = '<|return|>';
export const CALL = '<|call|>';

export type Marker = typeof START | typeof END | typeof MESSAGE | typeof CHANNEL | typeof CONSTRAIN | typeof RETURN | typeof CALL;

const MARKERS: readonly Marker[] = [START, END, MESSAGE, CHANNEL, CONSTRAIN, RETURN, CALL];
const LONGEST = Math.max(...MARKERS.map((marker) => marker.length));
// Markers by the character after `<|`, so a stray `<|` costs one lookup.
const BY_THIRD_CHAR = new Map<number, Marker[]>();
for (const marker of MARKERS) {
  const key = marker.charCodeAt(2);
  BY_THIRD_CHAR.set(key, [...(BY_THIRD_CHAR.get(key) ?? []), marker]);
}
const LT = 0x3c;
const PIPE = 0x7c;

/** `<|end|>`, `<|return|>` and `<|call|>` close a message. */
export function isTerminator(marker: Marker): boolean {
  return marker === END || marker === RETURN || marker === CALL;
}

/** The marker that begins exactly at `index`, if any. */
export function markerAt(text: string, index: number): Marker | undefined {
  if (text.charCodeAt(index) !== LT || text.charCodeAt(index + 1) !== PIPE) return undefined;
  const candidates = BY_THIRD_CHAR.get(text.charCodeAt(index + 2));
  // Indexed, not for-of: a first parse runs this in V8's unoptimised tiers, where for-of drives the iterator protocol.
  if (candidates) for (let k = 0; k < candidates.length; k++) if (text.startsWith(candidates[k]!, index)) return candidates[k];
  return undefined;
}

/** True when the text from `index` to its end is a proper prefix of some marker: more input may complete it. */
export function couldBeMarker(text: string, index: number): boolean {
  const rest = text.length - index;
  if (rest <= 0 || rest >= LONGEST || text.charCodeAt(index) !== LT) return false;
  const tail = text.slice(index);
  return MARKERS.some((marker) => marker.length > rest && marker.startsWith(tail));
}

/** A complete marker, or (marker undefined) a tail that may still become one and must be held back. */
export interface MarkerHit {
  at: number;
  marker: Marker | undefined;
}

/** The next complete or possibly-partial marker at or after `from`. Linear: each `<` is looked at once. */
export function findMarker(text: string, from: number): MarkerHit | undefined {
  for (let at = text.indexOf('<', from); at >= 0; at = text.indexOf('<', at + 1)) {
    const marker = markerAt(text, at);
    if (marker) return { at, marker };
    if (couldBeMarker(text, at)) return { at, marker: undefined };
  }
  return undefined;
}

/**
 * Where `<|message|>` begins, when the text from `from` up to it is a whole header the marker loop would only append:
 * within `limit` characters, and no marker in it but `<|channel|>` and `<|constrain|>` (a `<` that begins no marker is
 * a word's). -1 otherwise, for the loop to decide. Reads at most `limit` + `<|message|>` characters.
 */
export function wholeHeaderEnd(text: string, from: number, limit: number): number {
  if (limit < 0) return -1;
  const window = text.length - from > limit + MESSAGE.length ? text.slice(from, from + limit + MESSAGE.length) : text.slice(from);
  const end = window.indexOf(MESSAGE);
  if (end < 0) return -1;
  for (let at = window.indexOf('<'); at < end; at = window.indexOf('<', at + 1)) {
    const marker = markerAt(window, at);
    if (marker !== undefined && marker !== CHANNEL && marker !== CONSTRAIN) return -1;
  }
  return from + end;
}

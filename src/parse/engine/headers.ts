import type { HeaderReader, HeaderResult } from './grammar.js';
import { MarkerSet } from './markers.js';
import { skipWhitespace } from './trim.js';

/** Headers longer than this are garbage, not a name still arriving. */
export const MAX_HEADER = 512;

/**
 * The end of the white space at `pos`, looking at most MAX_HEADER + 1 characters ahead; undefined when it runs longer.
 * A header reader runs again from the call's start on every push until it decides, so white space it skipped without
 * a bound (an opener followed by a megabyte of newlines, streamed) cost quadratic time. Past the limit the header is
 * garbage, as any longer header is.
 */
export function skipHeaderSpace(buf: string, pos: number): number | undefined {
  // Bounded in place: a slice of the window, taken at every value's close tag, cost a batch parse of the tag-argument
  // families 8–15%.
  const end = skipWhitespace(buf, pos, Math.min(buf.length, pos + MAX_HEADER + 1));
  return end - pos > MAX_HEADER ? undefined : end;
}

/** The error of a header that is white space past MAX_HEADER. */
export function blankHeader(pos: number): HeaderResult {
  return { status: 'error', at: pos, message: 'call header of white space only' };
}

export type ReadResult =
  | { status: 'more' }
  | { status: 'error'; at: number }
  | { status: 'found'; text: string; at: number; marker: string };

/** Reads up to the first delimiter, within MAX_HEADER characters; never looks further than that. */
export function readUntil(buf: string, pos: number, delimiters: MarkerSet): ReadResult {
  const hit = delimiters.findWithin(buf, pos, pos + MAX_HEADER + delimiters.longest);
  if (hit && hit.at - pos <= MAX_HEADER) return { status: 'found', text: buf.slice(pos, hit.at), at: hit.at, marker: hit.marker };
  if (buf.length - pos > MAX_HEADER + delimiters.longest) return { status: 'error', at: pos };
  return { status: 'more' };
}

export interface NameUntilOptions {
  /** Delimiters that end the name; consumed unless listed in `keep`. */
  delimiters: readonly string[];
  keep?: readonly string[];
  /** Turns the raw header text into name (+ wire id). */
  map?: (text: string) => { name: string; id?: string; anonymous?: boolean };
}

/** `NAME<delimiter>`: the whole header is a (trimmed) name or id. */
export function nameUntil(options: NameUntilOptions): HeaderReader {
  const delimiters = new MarkerSet(options.delimiters);
  const keep = new Set(options.keep ?? []);
  return (buf, pos) => {
    const start = skipHeaderSpace(buf, pos);
    if (start === undefined) return blankHeader(pos);
    const read = readUntil(buf, start, delimiters);
    if (read.status === 'found') {
      const text = read.text.trim();
      const end = keep.has(read.marker) ? read.at : read.at + read.marker.length;
      const named = options.map ? options.map(text) : { name: text };
      return named.id === undefined && !named.anonymous ? { status: 'ok', end, name: named.name } : { status: 'ok', end, ...named };
    }
    return endOfHeader(read, 'call header without its delimiter');
  };
}

/** `<function=NAME>` (Qwen3-Coder, Seed-OSS), after optional whitespace. */
export function functionTag(open = '<function=', close = '>'): HeaderReader {
  // A name never spans a line or holds a tag: `<function=f\n<parameter=…` is a broken header.
  const closer = new MarkerSet([close, '\n', '<']);
  return (buf, pos) => {
    const start = skipHeaderSpace(buf, pos);
    if (start === undefined) return blankHeader(pos);
    const head = buf.slice(start, start + open.length);
    if (head !== open.slice(0, head.length)) return { status: 'error', at: start, message: `expected ${open}NAME${close}` };
    if (head.length < open.length) return { status: 'more' };
    const read = readUntil(buf, start + open.length, closer);
    if (read.status === 'found') {
      if (read.marker !== close) return { status: 'error', at: read.at, message: `${open}NAME without ${close}` };
      return { status: 'ok', end: read.at + read.marker.length, name: read.text.trim() };
    }
    return endOfHeader(read, `${open}NAME without ${close}`);
  };
}

/** No header: the argument codec names the call (Hermes JSON). */
export const noHeader: HeaderReader = (_buf, pos) => ({ status: 'ok', end: pos });

/** An unfinished header at the end of output is a truncated call; the machine reports that. */
function endOfHeader(read: ReadResult, message: string): HeaderResult {
  if (read.status === 'error') return { status: 'error', at: read.at, message };
  return { status: 'more' };
}

/**
 * Picks a reader by the header's first non-space character: one opener may start two syntaxes (Mistral's
 * `[TOOL_CALLS]` opens either a JSON list of calls or `NAME[ARGS]`).
 */
export function byLead(readers: Readonly<Record<string, HeaderReader>>, otherwise: HeaderReader): HeaderReader {
  return (buf, pos, final) => {
    const start = skipHeaderSpace(buf, pos);
    if (start === undefined) return blankHeader(pos);
    if (start >= buf.length) return final ? otherwise(buf, pos, final) : { status: 'more' };
    return (readers[buf[start]!] ?? otherwise)(buf, pos, final);
  };
}

export interface MarkedNameOptions {
  /** Ends the name and starts the arguments; consumed unless listed in `keep`. */
  delimiters: readonly string[];
  keep?: readonly string[];
  /** Between the name and a delimiter: a marker followed by the call id (`[CALL_ID]`). */
  idMarker?: string;
}

/**
 * `NAME[ID_MARKER ID]DELIMITER` where NAME and ID are unbroken words (no space, quote, bracket or brace): text that
 * is not a call (prose after a stray opener) fails at its first such character instead of waiting for a delimiter.
 */
export function markedName(options: MarkedNameOptions): HeaderReader {
  const delimiters = new MarkerSet(options.delimiters);
  const keep = new Set(options.keep ?? []);
  const idMarker = options.idMarker;
  return (buf, pos) => {
    const start = skipHeaderSpace(buf, pos);
    if (start === undefined) return blankHeader(pos);
    const nameEnd = wordEnd(buf, start);
    if (nameEnd === undefined) return { status: 'error', at: start, message: 'overlong call name' };
    let end = nameEnd;
    let id: string | undefined;
    if (idMarker !== undefined && nameEnd < buf.length && buf.startsWith(idMarker.slice(0, buf.length - nameEnd), nameEnd)) {
      if (buf.length - nameEnd < idMarker.length) return { status: 'more' };
      const idEnd = wordEnd(buf, nameEnd + idMarker.length);
      if (idEnd === undefined) return { status: 'error', at: nameEnd, message: 'overlong call id' };
      id = buf.slice(nameEnd + idMarker.length, idEnd);
      end = idEnd;
    }
    if (end >= buf.length) return { status: 'more' };
    const marker = delimiters.at(buf, end);
    if (marker === undefined) {
      if (delimiters.couldStartAt(buf, end)) return { status: 'more' };
      return { status: 'error', at: end, message: `call name not followed by ${options.delimiters.join(' or ')}` };
    }
    const name = buf.slice(start, nameEnd);
    const after = keep.has(marker) ? end : end + marker.length;
    return id === undefined || id.length === 0 ? { status: 'ok', end: after, name } : { status: 'ok', end: after, name, id };
  };
}

/**
 * An unbroken word: no white space (JS `\s` is exactly what String.prototype.trim removes) and none of the characters
 * that end a name or id (JSON and marker punctuation). One sticky match instead of a JS loop per character: a first
 * parse runs its JavaScript unoptimised. One bounded character class, so linear on any input.
 */
const WORD = new RegExp(String.raw`[^\s\[\]{}()<>"',;]{0,${MAX_HEADER + 1}}`, 'y');

/** End of the word at `pos` (at most MAX_HEADER characters), or undefined when it runs longer. */
function wordEnd(buf: string, pos: number): number | undefined {
  WORD.lastIndex = pos;
  const end = WORD.test(buf) ? WORD.lastIndex : pos;
  return end - pos > MAX_HEADER ? undefined : end;
}

import { parseWork } from './work.js';
import { INVALID, JsonValueScanner, NEED_MORE } from './json-scan.js';
import { isWhitespace } from './trim.js';

/**
 * Why `JsonObjectScanner.scan` stopped. `angle`: a `<` outside any string, which may open a marker
 * (the caller decides; if it is not one it is a JSON error). `not-object`: the first value character
 * is not `{`.
 */
export type ScanStop = 'end' | 'angle' | 'error' | 'not-object';

export interface ScanResult {
  stop: ScanStop;
  /** Index of the character that stopped the scan (`to` for `end`); it was not consumed. */
  at: number;
}

/**
 * A JSON object streamed in chunks whose end is not known in advance (harmony call bodies end at a
 * marker): Unicode whitespace may surround the object, and a `<` outside strings is reported so the
 * caller can look for a marker there. The grammar itself is JsonValueScanner's (one validator).
 */
export class JsonObjectScanner {
  private value: JsonValueScanner | undefined;
  private closed = false;
  /** Index (in the text of the latest `scan`) of the opening `{`, or -1 if it was not in that text. */
  startAt = -1;
  /** Index (in the text of the latest `scan`) just past the closing `}`, or -1 if it was not in that text. */
  endAt = -1;

  /** The opening `{` has been seen. */
  get started(): boolean {
    return this.value !== undefined;
  }

  /** The top-level object is closed; only whitespace may follow. */
  get done(): boolean {
    return this.closed;
  }

  /** Consumes all of `text` when it stays inside a string of the open object (JsonValueScanner.extendString). */
  extendString(text: string): boolean {
    return this.value !== undefined && !this.closed && this.value.extendString(text);
  }

  scan(text: string, from: number, to: number): ScanResult {
    const result = this.scanFrom(text, from, to);
    parseWork.chars += result.at - from;
    return result;
  }

  private scanFrom(text: string, from: number, to: number): ScanResult {
    this.startAt = -1;
    this.endAt = -1;
    if (to < text.length) text = text.slice(0, to);
    let i = from;
    if (this.value === undefined) {
      i = skipSpace(text, i);
      if (i >= to) return { stop: 'end', at: to };
      const c = text.charCodeAt(i);
      if (c === 0x3c) return { stop: 'angle', at: i };
      if (c !== 0x7b) return { stop: 'not-object', at: i };
      this.value = new JsonValueScanner();
      this.startAt = i;
    }
    if (!this.closed) {
      const end = this.value.scan(text, i, false);
      if (end === NEED_MORE) return { stop: 'end', at: to };
      if (end === INVALID) {
        const at = this.value.errorAt;
        return { stop: text.charCodeAt(at) === 0x3c && this.value.betweenTokens ? 'angle' : 'error', at };
      }
      this.closed = true;
      this.endAt = end;
      i = end;
    }
    i = skipSpace(text, i);
    if (i >= to) return { stop: 'end', at: to };
    return { stop: text.charCodeAt(i) === 0x3c ? 'angle' : 'error', at: i };
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

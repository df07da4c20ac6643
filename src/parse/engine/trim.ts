import { parseWork } from './work.js';

/** The characters String.prototype.trim removes, tested by code unit. */
export function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 ||
    code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** The end of the white space at `pos`, looking no further than `end`. */
export function skipWhitespace(buf: string, pos: number, end = buf.length): number {
  // ASCII is decided here without a call per character: a first parse runs this in V8's unoptimised tiers. The loop
  // stops at the end instead of reading past it (NaN): TurboFan, which optimises this function during the first
  // parse, compiled that read as a deoptimisation, taken at the first white space that ends a buffer, then compiled
  // the function again.
  while (pos < end) {
    const code = buf.charCodeAt(pos);
    if (code === 32 || (code >= 9 && code <= 13) || (code >= 0xa0 && isWhitespace(code))) pos++;
    else return pos;
  }
  return pos;
}

/**
 * Streaming trim of one text channel (content or reasoning): whitespace at a structure boundary is
 * dropped, and trailing whitespace is held until a non-space character (release) or a boundary (drop)
 * decides. Nothing is ever taken back after it was released.
 */
export class StreamTrimmer {
  private held = '';
  private atBoundary = true;
  private released = false;

  /** True once any text was released on this channel. */
  get hasText(): boolean {
    return this.released;
  }

  /** Returns the part of `text` that can be released now. */
  push(text: string): string {
    parseWork.chars += text.length;
    if (text.length === 0) return '';
    let start = 0;
    if (this.atBoundary) {
      start = skipWhitespace(text, 0);
      if (start === text.length) return '';
      this.atBoundary = false;
    }
    let end = text.length;
    while (end > start && isWhitespace(text.charCodeAt(end - 1))) end--;
    if (end === start) {
      this.held += text.slice(start);
      return '';
    }
    const out = this.held + (start === 0 && end === text.length ? text : text.slice(start, end));
    this.held = end === text.length ? '' : text.slice(end);
    this.released = true;
    return out;
  }

  /** Text that is not subject to leading trim (e.g. a failed call's raw text restored as content). */
  pushVerbatim(text: string): string {
    this.atBoundary = false;
    return this.push(text);
  }

  /** A structure boundary: held whitespace is dropped and leading whitespace of what follows too. */
  boundary(): void {
    this.held = '';
    this.atBoundary = true;
  }

  /** Takes the held whitespace (e.g. to restore it if a call start turns out not to be one). */
  takeHeld(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}

// An incremental validator for a JSON object streamed in chunks. It never builds values: the caller
// forwards the model's own text, and this only says where the object starts, where it ends and where
// it first goes wrong. Harmony-only for now; a candidate to share with src/parse/engine.

import { isWhitespace } from '../engine/trim.js';

/**
 * Why `scan` stopped. `angle`: a `<` outside any string, which may open a harmony marker (the caller
 * decides; if it is not a marker it is a JSON error). `not-object`: the first value character is not `{`.
 */
export type ScanStop = 'end' | 'angle' | 'error' | 'not-object';

export interface ScanResult {
  stop: ScanStop;
  /** Index of the character that stopped the scan (`to` for `end`); it was not consumed. */
  at: number;
}

// Parser states. START..AFTER_VALUE (and DONE) sit between tokens; `scan` relies on that order.
const START = 0;
const VALUE = 1;
const VALUE_OR_CLOSE = 2;
const KEY = 3;
const KEY_OR_CLOSE = 4;
const COLON = 5;
const AFTER_VALUE = 6;
const STRING = 7;
const ESCAPE = 8;
const UNICODE = 9;
const NUMBER = 10;
const LITERAL = 11;
const DONE = 12;

// Number sub-states (JSON number grammar); the accepting ones may end the number.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;
const NUMBER_ACCEPTS = [false, true, true, false, true, false, false, true];

const OBJECT = 0;
const ARRAY = 1;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
// " \ / b f n r t
const isSimpleEscape = (c: number) =>
  c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;

function numberStep(state: number, c: number): number {
  const digit = isDigit(c);
  switch (state) {
    case N_MINUS:
      return c === 0x30 ? N_ZERO : digit ? N_INT : -1;
    case N_ZERO:
      return c === 0x2e ? N_DOT : c === 0x65 || c === 0x45 ? N_E : -1;
    case N_INT:
      return digit ? N_INT : c === 0x2e ? N_DOT : c === 0x65 || c === 0x45 ? N_E : -1;
    case N_DOT:
      return digit ? N_FRAC : -1;
    case N_FRAC:
      return digit ? N_FRAC : c === 0x65 || c === 0x45 ? N_E : -1;
    case N_E:
      return c === 0x2b || c === 0x2d ? N_E_SIGN : digit ? N_EXP : -1;
    default: // N_E_SIGN, N_EXP
      return digit ? N_EXP : -1;
  }
}

export class JsonObjectScanner {
  private state = START;
  private readonly stack: number[] = [];
  private stringIsKey = false;
  private hexLeft = 0;
  private numberState = N_INT;
  private literal = '';
  private literalPos = 0;
  /** Index (in the text of the latest `scan`) of the opening `{`, or -1 if it was not in that text. */
  startAt = -1;
  /** Index (in the text of the latest `scan`) just past the closing `}`, or -1 if it was not in that text. */
  endAt = -1;

  /** The opening `{` has been seen. */
  get started(): boolean {
    return this.state !== START;
  }

  /** The top-level object is closed; only whitespace may follow. */
  get done(): boolean {
    return this.state === DONE;
  }

  scan(text: string, from: number, to: number): ScanResult {
    this.startAt = -1;
    this.endAt = -1;
    let i = from;
    while (i < to) {
      const state = this.state;
      let c = text.charCodeAt(i);
      if (state === STRING) {
        // Hot path: string bodies run in this tight loop.
        while (c !== 0x22 && c !== 0x5c && c >= 0x20 && ++i < to) c = text.charCodeAt(i);
        if (i === to) break;
        if (c < 0x20) return { stop: 'error', at: i };
        this.state = c === 0x5c ? ESCAPE : this.stringIsKey ? COLON : AFTER_VALUE;
        i++;
        continue;
      }
      if (state <= AFTER_VALUE || state === DONE) {
        // Between tokens: skip JSON whitespace in a tight loop. Other Unicode spaces are allowed only
        // around the object, where they are never forwarded.
        while ((c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) && ++i < to) c = text.charCodeAt(i);
        if (i === to) break;
        if (c > 0x7f && (state === START || state === DONE) && isWhitespace(c)) {
          i++;
          continue;
        }
        if (c === 0x3c) return { stop: 'angle', at: i };
        if (!this.structural(state, c, i)) return { stop: state === START ? 'not-object' : 'error', at: i };
        i++;
        continue;
      }
      if (state === ESCAPE) {
        if (c === 0x75) {
          this.state = UNICODE;
          this.hexLeft = 4;
        } else if (isSimpleEscape(c)) this.state = STRING;
        else return { stop: 'error', at: i };
        i++;
        continue;
      }
      if (state === UNICODE) {
        if (!isHex(c)) return { stop: 'error', at: i };
        if (--this.hexLeft === 0) this.state = STRING;
        i++;
        continue;
      }
      if (state === NUMBER) {
        const next = numberStep(this.numberState, c);
        if (next >= 0) {
          this.numberState = next;
          i++;
          continue;
        }
        if (!NUMBER_ACCEPTS[this.numberState]) return { stop: 'error', at: i };
        this.state = AFTER_VALUE; // the number ended; look at `c` again as what follows it
        continue;
      }
      // LITERAL
      if (c !== this.literal.charCodeAt(this.literalPos)) return { stop: 'error', at: i };
      if (++this.literalPos === this.literal.length) this.state = AFTER_VALUE;
      i++;
    }
    return { stop: 'end', at: to };
  }

  private structural(state: number, c: number, i: number): boolean {
    switch (state) {
      case START:
        if (c !== 0x7b) return false;
        this.startAt = i;
        this.open(OBJECT);
        return true;
      case VALUE_OR_CLOSE:
        if (c === 0x5d) return this.close(ARRAY, i);
        return this.beginValue(c);
      case VALUE:
        return this.beginValue(c);
      case KEY_OR_CLOSE:
        if (c === 0x7d) return this.close(OBJECT, i);
        return this.beginKey(c);
      case KEY:
        return this.beginKey(c);
      case COLON:
        if (c !== 0x3a) return false;
        this.state = VALUE;
        return true;
      case AFTER_VALUE: {
        const top = this.stack[this.stack.length - 1];
        if (c === 0x2c) {
          this.state = top === OBJECT ? KEY : VALUE;
          return true;
        }
        if (c === 0x7d) return this.close(OBJECT, i);
        if (c === 0x5d) return this.close(ARRAY, i);
        return false;
      }
      default: // DONE: only whitespace may follow the object
        return false;
    }
  }

  private beginKey(c: number): boolean {
    if (c !== 0x22) return false;
    this.stringIsKey = true;
    this.state = STRING;
    return true;
  }

  private beginValue(c: number): boolean {
    if (c === 0x7b) this.open(OBJECT);
    else if (c === 0x5b) this.open(ARRAY);
    else if (c === 0x22) {
      this.stringIsKey = false;
      this.state = STRING;
    } else if (c === 0x2d || isDigit(c)) {
      this.numberState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      this.state = NUMBER;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      this.literalPos = 1;
      this.state = LITERAL;
    } else return false;
    return true;
  }

  private open(kind: number): void {
    this.stack.push(kind);
    this.state = kind === OBJECT ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
  }

  private close(kind: number, i: number): boolean {
    if (this.stack[this.stack.length - 1] !== kind) return false;
    this.stack.pop();
    if (this.stack.length > 0) this.state = AFTER_VALUE;
    else {
      this.state = DONE;
      this.endAt = i + 1;
    }
    return true;
  }
}

import { ITEM_RUN, MEMBER_RUN, STRING_RUN, STRING_VALUE_OPEN } from './json-runs.js';
import { parseWork } from './work.js';

/** Scan result: the end index (exclusive) of a complete value, or one of these. */
export const NEED_MORE = -1;
export const INVALID = -2;

export type JsonValueKind = 'object' | 'array' | 'string' | 'primitive';

// Parser states. Containers live on `stack` (OBJECT / ARRAY); strings, numbers and literals are
// sub-machines that return to AFTER_VALUE.
const VALUE = 0; // a value must follow (after ':' or ',' in an array, or at the start)
const VALUE_OR_END = 1; // after '['
const KEY_OR_END = 2; // after '{'
const KEY = 3; // after ',' in an object
const COLON = 4;
const AFTER_VALUE = 5; // ',' or a closing bracket
const STRING = 6;
const NUMBER = 7;
const LITERAL = 8;

const OBJECT = 1;
const ARRAY = 2;

// Number sub-states; the accepting ones can end the number.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;
const ACCEPTING = [false, true, true, false, true, false, false, true];

const LITERALS: Record<number, string> = { 116: 'true', 102: 'false', 110: 'null' };
const SIMPLE_ESCAPES = new Uint8Array(128);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPES[c.charCodeAt(0)] = 1;

/** Below this many characters left in the buffer, a plain loop beats a regex call. */
const SHORT_RUN = 16;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/**
 * An incremental, strict JSON validator for one value (RFC 8259 grammar): tracks nesting, string and
 * escape state, number and literal syntax, so it finds where the value ends, early, without building
 * it — `{`, `}` or a closing tag inside a string never confuse it (lessons vllm#21544, #10395), and a
 * marker's `<` outside strings fails at once. Chunks may split anywhere, even inside an escape.
 */
export class JsonValueScanner {
  kind: JsonValueKind | undefined;
  /** Index (in the buffer of that call) of the offending character after INVALID. */
  errorAt = -1;
  private readonly stack: number[] = [];
  private state = VALUE;
  /** Inside a string: 0 normal, 1 after a backslash, 2..5 reading \u hex digits. */
  private escape = 0;
  private numberState = N_MINUS;
  private literal = '';
  private literalAt = 0;

  /** Between tokens (not inside a string, number or literal): where a marker could interrupt the value. */
  get betweenTokens(): boolean {
    return this.state < STRING;
  }

  /** Continues the scan at `buf[from]`; `final` = no more text will come (ends a bare number). */
  scan(buf: string, from: number, final: boolean): number {
    const end = this.scanFrom(buf, from, final);
    parseWork.chars += (end >= 0 ? end : end === INVALID ? this.errorAt : buf.length) - from;
    return end;
  }

  /**
   * Consumes all of `chunk` when it stays inside the string being read (no closing quote, nothing invalid, escapes
   * may end split); else returns false with nothing changed, for scan to decide. The streaming fast lane.
   */
  extendString(chunk: string): boolean {
    if (this.state !== STRING) return false;
    let escape = this.escape;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (escape === 0) {
        if (c === 92) escape = 1;
        else if (c === 34 || c < 32) return false;
      } else if (escape === 1) {
        if (c === 117) escape = 2;
        else if (c < 128 && SIMPLE_ESCAPES[c]) escape = 0;
        else return false;
      } else if (isHex(c)) escape = escape === 5 ? 0 : escape + 1;
      else return false;
    }
    this.escape = escape;
    parseWork.chars += chunk.length;
    return true;
  }

  private scanFrom(buf: string, from: number, final: boolean): number {
    const n = buf.length;
    let i = from;
    if (this.kind === undefined) {
      if (i >= n) return NEED_MORE;
      const c = buf.charCodeAt(i);
      this.kind = c === 123 ? 'object' : c === 91 ? 'array' : c === 34 ? 'string' : 'primitive';
    }
    // Where the last native run stopped: a member it could not take is left to the loop, not tried again.
    let runEnd = -1;
    while (i < n) {
      const c = buf.charCodeAt(i);
      switch (this.state) {
        case STRING: {
          i = this.scanString(buf, i);
          if (i < 0) return this.fail(-i - 1);
          if (this.state === STRING) return NEED_MORE;
          if (this.stack.length === 0) return i;
          continue;
        }
        case NUMBER: {
          const next = this.stepNumber(c);
          if (next === 1) {
            i++;
            continue;
          }
          if (next === -1) return this.fail(i);
          this.state = AFTER_VALUE;
          if (this.stack.length === 0) return i;
          continue;
        }
        case LITERAL:
          if (c !== this.literal.charCodeAt(this.literalAt)) return this.fail(i);
          i++;
          if (++this.literalAt === this.literal.length) {
            this.state = AFTER_VALUE;
            if (this.stack.length === 0) return i;
          }
          continue;
      }
      // JSON white space, tested inline: the state loop runs in V8's unoptimised tiers on a first parse.
      if (c === 32 || c === 10 || c === 13 || c === 9) {
        i++;
        continue;
      }
      switch (this.state) {
        case VALUE:
        case VALUE_OR_END:
          if (i !== runEnd && n - i >= SHORT_RUN && this.stack[this.stack.length - 1] === ARRAY) {
            runEnd = this.plainRun(ITEM_RUN, buf, i, VALUE);
            if (runEnd > i) {
              i = runEnd;
              continue;
            }
          }
          if (this.state === VALUE_OR_END && c === 93) {
            i++;
            if (this.close() === 0) return i;
            continue;
          }
          if (!this.startValue(c)) return this.fail(i);
          i++;
          continue;
        case KEY_OR_END:
        case KEY:
          if (i !== runEnd && n - i >= SHORT_RUN) {
            runEnd = this.plainRun(MEMBER_RUN, buf, i, KEY);
            runEnd = this.openStringValue(buf, runEnd);
            if (runEnd > i) {
              i = runEnd;
              continue;
            }
          }
          if (this.state === KEY_OR_END && c === 125) {
            i++;
            if (this.close() === 0) return i;
            continue;
          }
          if (c !== 34) return this.fail(i);
          this.state = STRING;
          this.escape = 0;
          this.stack.push(-OBJECT); // marks "this string is a key"
          i++;
          continue;
        case COLON:
          if (c !== 58) return this.fail(i);
          this.state = VALUE;
          i++;
          continue;
        case AFTER_VALUE: {
          const top = this.stack[this.stack.length - 1];
          if (c === 44) this.state = top === OBJECT ? KEY : VALUE;
          else if ((c === 125 && top === OBJECT) || (c === 93 && top === ARRAY)) {
            i++;
            if (this.close() === 0) return i;
            continue;
          } else return this.fail(i);
          i++;
          continue;
        }
      }
    }
    if (this.state === NUMBER && final && this.stack.length === 0 && ACCEPTING[this.numberState]) return n;
    return NEED_MORE;
  }

  /** Reads a run of plain members or items (MEMBER_RUN, ITEM_RUN) natively; returns where it stopped. */
  private plainRun(run: RegExp, buf: string, i: number, afterComma: number): number {
    run.lastIndex = i;
    run.test(buf);
    const end = run.lastIndex;
    // A run ends after a `,` (the next member or item must follow) or before the closing bracket.
    if (end > i) this.state = buf.charCodeAt(end - 1) === 44 ? afterComma : AFTER_VALUE;
    return end;
  }

  /**
   * Where a member run stopped before a member (not at the closing brace): if that member's value is a string (a long
   * one, which the run leaves), reads up to its opening quote and leaves the value to the string state.
   */
  private openStringValue(buf: string, i: number): number {
    if (this.state === AFTER_VALUE) return i;
    STRING_VALUE_OPEN.lastIndex = i;
    if (!STRING_VALUE_OPEN.test(buf)) return i;
    this.state = STRING;
    this.escape = 0;
    return STRING_VALUE_OPEN.lastIndex;
  }

  private fail(at: number): number {
    this.errorAt = at;
    return INVALID;
  }

  private startValue(c: number): boolean {
    if (c === 123) {
      this.stack.push(OBJECT);
      this.state = KEY_OR_END;
    } else if (c === 91) {
      this.stack.push(ARRAY);
      this.state = VALUE_OR_END;
    } else if (c === 34) {
      this.state = STRING;
      this.escape = 0;
    } else if (c === 45 || isDigit(c)) {
      this.state = NUMBER;
      this.numberState = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
    } else if (LITERALS[c] !== undefined) {
      this.state = LITERAL;
      this.literal = LITERALS[c]!;
      this.literalAt = 1;
    } else return false;
    return true;
  }

  /** Pops a container; returns the remaining depth. */
  private close(): number {
    this.stack.pop();
    this.state = AFTER_VALUE;
    return this.stack.length;
  }

  /** Scans string content from `i`; returns the index after it, or -(errorIndex + 1). */
  private scanString(buf: string, i: number): number {
    const n = buf.length;
    while (i < n) {
      if (this.escape === 1) {
        const c = buf.charCodeAt(i);
        if (c === 117) this.escape = 2;
        else if (c < 128 && SIMPLE_ESCAPES[c]) this.escape = 0;
        else return -(i + 1);
        i++;
        continue;
      }
      if (this.escape >= 2) {
        if (!isHex(buf.charCodeAt(i))) return -(i + 1);
        this.escape = this.escape === 5 ? 0 : this.escape + 1;
        i++;
        continue;
      }
      // Plain characters and complete escapes go by in native code; what stops the run (a quote,
      // a backslash starting an escape, a control character) is read below. A few characters (small
      // streamed chunks) are cheaper to step over here than to hand to the regex engine.
      if (n - i < SHORT_RUN) {
        for (; i < n; i++) {
          const c = buf.charCodeAt(i);
          if (c === 34 || c === 92 || c < 32) break;
        }
      } else {
        STRING_RUN.lastIndex = i;
        STRING_RUN.test(buf);
        i = STRING_RUN.lastIndex;
      }
      if (i >= n) break;
      const c = buf.charCodeAt(i);
      if (c === 92) {
        this.escape = 1;
        i++;
        continue;
      }
      if (c !== 34) return -(i + 1);
      i++;
      // Closing quote: a key string goes on to ':', a value string is a finished value.
      if (this.stack[this.stack.length - 1] === -OBJECT) {
        this.stack.pop();
        this.state = COLON;
      } else this.state = AFTER_VALUE;
      return i;
    }
    return i;
  }

  /** 1: the character belongs to the number; 0: the number ended before it; -1: invalid. */
  private stepNumber(c: number): number {
    const digit = isDigit(c);
    switch (this.numberState) {
      case N_MINUS:
        if (!digit) return -1;
        this.numberState = c === 48 ? N_ZERO : N_INT;
        return 1;
      case N_ZERO:
      case N_INT:
        if (digit && this.numberState === N_INT) return 1;
        if (digit) return -1;
        if (c === 46) this.numberState = N_DOT;
        else if (c === 101 || c === 69) this.numberState = N_E;
        else return 0;
        return 1;
      case N_DOT:
        if (!digit) return -1;
        this.numberState = N_FRAC;
        return 1;
      case N_FRAC:
        if (digit) return 1;
        if (c === 101 || c === 69) {
          this.numberState = N_E;
          return 1;
        }
        return 0;
      case N_E:
        if (c === 43 || c === 45) {
          this.numberState = N_E_SIGN;
          return 1;
        }
        if (!digit) return -1;
        this.numberState = N_EXP;
        return 1;
      case N_E_SIGN:
        if (!digit) return -1;
        this.numberState = N_EXP;
        return 1;
      default:
        return digit ? 1 : 0;
    }
  }
}

/** JSON.parse without throwing. */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Scan result: the end index (exclusive) of a complete value, or one of these. */
export const NEED_MORE = -1;
export const INVALID = -2;

const QUOTE = 34;
const BACKSLASH = 92;

/** Characters allowed outside strings in a JSON value: structure, whitespace, numbers, literals. */
const OUTSIDE_STRING = new Uint8Array(128);
for (const c of ' \t\n\r{}[]:,-+.0123456789') OUTSIDE_STRING[c.charCodeAt(0)] = 1;
for (let c = 97; c <= 122; c++) OUTSIDE_STRING[c] = 1; // true, false, null (and letters JSON.parse rejects later)
OUTSIDE_STRING[69] = 1; // exponent 'E'

const PRIMITIVE = new Uint8Array(128);
for (const c of '-+.0123456789E') PRIMITIVE[c.charCodeAt(0)] = 1;
for (let c = 97; c <= 122; c++) PRIMITIVE[c] = 1;

export type JsonValueKind = 'object' | 'array' | 'string' | 'primitive';

/**
 * Finds where one JSON value ends, incrementally: tracks nesting, string and escape state (so `{`,
 * `}` or a closing tag inside a string never confuse it) and rejects characters that cannot occur
 * outside strings (`<` of a marker, quotes of another kind). Exact validation is left to JSON.parse
 * on the complete value; this only has to find the end early and fail fast on garbage.
 */
export class JsonValueScanner {
  kind: JsonValueKind | undefined;
  /** Offset (in the buffer of the failing call) of the offending character after INVALID. */
  errorAt = -1;
  private depth = 0;
  private inString = false;
  private escape = false;

  /** `buf[from]` must be the value's first character (or a continuation). */
  scan(buf: string, from: number, final: boolean): number {
    let i = from;
    const n = buf.length;
    if (this.kind === undefined) {
      if (i >= n) return NEED_MORE;
      const c = buf.charCodeAt(i);
      if (c === 123 || c === 91) {
        this.kind = c === 123 ? 'object' : 'array';
        this.depth = 1;
        i++;
      } else if (c === QUOTE) {
        this.kind = 'string';
        this.inString = true;
        i++;
      } else if (c < 128 && PRIMITIVE[c]) {
        this.kind = 'primitive';
      } else {
        this.errorAt = i;
        return INVALID;
      }
    }
    if (this.kind === 'primitive') {
      while (i < n) {
        const c = buf.charCodeAt(i);
        if (c >= 128 || !PRIMITIVE[c]) return i;
        i++;
      }
      return final ? n : NEED_MORE;
    }
    while (i < n) {
      if (this.inString) {
        if (this.escape) {
          this.escape = false;
          i++;
        }
        for (; i < n; i++) {
          const c = buf.charCodeAt(i);
          if (c === QUOTE) break;
          if (c === BACKSLASH) {
            if (i + 1 >= n) {
              this.escape = true;
              return NEED_MORE;
            }
            i++;
          }
        }
        if (i >= n) return NEED_MORE;
        i++;
        this.inString = false;
        if (this.kind === 'string') return i;
        continue;
      }
      for (; i < n; i++) {
        const c = buf.charCodeAt(i);
        if (c === QUOTE) {
          this.inString = true;
          i++;
          break;
        }
        if (c === 123 || c === 91) this.depth++;
        else if (c === 125 || c === 93) {
          if (--this.depth === 0) return i + 1;
        } else if (c >= 128 || !OUTSIDE_STRING[c]) {
          this.errorAt = i;
          return INVALID;
        }
      }
    }
    return NEED_MORE;
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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import type { ParseCode } from '../../../types.js';
import type { ArgsCodec, CallSink, CodecContext, CodecFactory, CodecResult, LaneHold } from '../grammar.js';
import { isJsonNumber } from '../../args/json-text.js';
import { MAX_HEADER } from '../headers.js';
import { MarkerSet } from '../markers.js';
import { parseWork } from '../work.js';
import { escapeFragment } from './escape-fragment.js';
import { clipForMessage, isHighSurrogate } from '../../../util/utf16.js';

export interface ObjectNotationSyntax {
  /** The one token that opens and closes every string (Gemma's `<|"|>`); nothing is escaped between two of them. */
  stringDelimiter: string;
  /** Bare words read as null, with a warning (templates that print Python's `None` teach the model to write it). */
  nullAliases?: readonly string[];
}

/** Positions between tokens; the other states are inside a string or a bare token. */
type Structural = 'start' | 'key' | 'colon' | 'value' | 'after';
type State = Structural | 'quoted-key' | 'string' | 'bare-key' | 'bare' | 'repair';

/**
 * The text of a bare key or literal up to what may end it: a structural character, or a `<` that may open the string
 * delimiter. One native match instead of a loop per character (a first parse runs that loop unoptimised). Linear: one
 * negated class, nothing after it.
 */
const TOKEN_TEXT = /[^:,{}[\]<]*/y;

/**
 * A JSON-like object notation turned into JSON text as it arrives: bare keys (`{city:…}`) or delimited ones, strings
 * wrapped in a delimiter token with raw text between, bare literals (numbers, true, false, null), nested objects and
 * arrays. Keys are quoted in the output; strings stream as escaped fragments. A bare literal is written only once it
 * ends (a `tru` or the `4` of `42` could still grow, `108.` is not a number yet), and a delimiter split across chunks
 * is held, so no prefix of the output ever needs taking back.
 *
 * Tolerated, each with a warning: a trailing comma (`[42,]`), an empty value (`key:}` → `""`), and a string whose
 * opening delimiter is missing (`query:weather in Tokyo, Japan<|"|>`, repaired as SGLang does: up to the closing
 * delimiter, commas and colons included, unless the call ends first).
 */
export function objectNotation(syntax: ObjectNotationSyntax): CodecFactory {
  const nulls = new Set(syntax.nullAliases ?? []);
  // What ends a repaired string: its closing delimiter, or the end of the call (then it was no string).
  const repairEnds = new WeakMap<MarkerSet, MarkerSet>();
  return (context: CodecContext) => {
    let ends = repairEnds.get(context.followers);
    if (!ends) repairEnds.set(context.followers, (ends = new MarkerSet([syntax.stringDelimiter, ...context.followers.markers])));
    return new ObjectNotationCodec(syntax.stringDelimiter, nulls, context, ends);
  };
}

class ObjectNotationCodec implements ArgsCodec {
  private state: State = 'start';
  /** Open containers, innermost last: true = object. */
  private readonly stack: boolean[] = [];
  /** A comma was read and is written only when another item follows (so `[42,]` stays valid JSON). */
  private pendingComma = false;
  /** The bare key or bare literal read so far (never re-scanned: each feed scans only new text). */
  private token = '';
  /** Half a surrogate pair held back from a string fragment. */
  private held = '';

  constructor(
    private readonly delimiter: string,
    private readonly nulls: ReadonlySet<string>,
    private readonly context: CodecContext,
    private readonly repairEnds: MarkerSet,
  ) {}

  feed(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult {
    for (;;) {
      if (this.state === 'string' || this.state === 'quoted-key') {
        const end = this.readString(buf, pos, sink);
        if (end < 0) return { status: 'more', pos: -end - 1 };
        pos = end;
        continue;
      }
      if (this.state === 'repair') {
        const read = this.readRepair(buf, pos, final, sink);
        if (typeof read !== 'number') return read;
        pos = read;
        continue;
      }
      if (this.state === 'bare' || this.state === 'bare-key') {
        const read = this.readToken(buf, pos, final);
        if (read.more) return { status: 'more', pos: read.at };
        const next = this.endToken(buf, read.at, sink);
        if (typeof next !== 'number') return next;
        pos = next;
        continue;
      }
      while (pos < buf.length && isSpace(buf.charCodeAt(pos))) pos++;
      if (pos >= buf.length) return { status: 'more', pos };
      const result = this.structural(this.state, buf, pos, final, sink);
      if (typeof result !== 'number') return result;
      pos = result;
    }
  }

  /** One step at a structural position (`buf[pos]` is not whitespace); returns the new position or a result. */
  private structural(state: Structural, buf: string, pos: number, final: boolean, sink: CallSink): number | CodecResult {
    const c = buf[pos]!;
    const inObject = this.stack[this.stack.length - 1] === true;
    switch (state) {
      case 'start':
        if (c === '{') return this.open(true, pos, sink);
        if (this.context.followers.at(buf, pos) !== undefined) {
          // `call:NAME<tool_call|>`: no braces at all is an empty argument list.
          sink.args('{}');
          return { status: 'done', pos };
        }
        if (!final && this.context.followers.couldStartAt(buf, pos)) return { status: 'more', pos };
        return fail(pos, 'PARSE_ARGS_NOT_OBJECT', 'the arguments are not an object');
      case 'key':
        if (c === '}') return this.close(true, pos, sink);
        if (this.startsDelimiter(buf, pos, final)) {
          if (buf.length - pos < this.delimiter.length) return { status: 'more', pos };
          this.item(sink);
          sink.args('"');
          this.state = 'quoted-key';
          return pos + this.delimiter.length;
        }
        if (c === ':') {
          // The empty key, as the template writes it: nothing between the separator and the colon.
          this.item(sink);
          sink.args('"":');
          this.state = 'value';
          return pos + 1;
        }
        if (isPunctuation(c)) return fail(pos, 'PARSE_BAD_ARGS_JSON', `expected a key, found "${c}"`);
        this.token = '';
        this.state = 'bare-key';
        return pos;
      case 'colon':
        if (c !== ':') return fail(pos, 'PARSE_BAD_ARGS_JSON', 'expected ":" after a key');
        this.state = 'value';
        return pos + 1;
      case 'value':
        if (c === '{' || c === '[') {
          this.item(sink);
          return this.open(c === '{', pos, sink);
        }
        if (c === ']' && !inObject) return this.close(false, pos, sink);
        if ((c === '}' || c === ',') && inObject) {
          // `key:}`: no value at all reads as an empty string (vLLM's reading).
          sink.args('""');
          sink.warn('PARSE_BAD_ARGS_JSON', 'a key without a value; read as ""', pos);
          this.state = 'after';
          return pos;
        }
        if (this.startsDelimiter(buf, pos, final)) {
          if (buf.length - pos < this.delimiter.length) return { status: 'more', pos };
          this.item(sink);
          sink.args('"');
          this.state = 'string';
          return pos + this.delimiter.length;
        }
        if (isPunctuation(c)) return fail(pos, 'PARSE_BAD_ARGS_JSON', `expected a value, found "${c}"`);
        this.token = '';
        this.state = 'bare';
        return pos;
      case 'after':
        if (c === ',') {
          this.pendingComma = true;
          this.state = inObject ? 'key' : 'value';
          return pos + 1;
        }
        if (c === '}' || c === ']') return this.close(c === '}', pos, sink);
        return fail(pos, 'PARSE_BAD_ARGS_JSON', `expected "," or a closing bracket, found "${c}"`);
    }
  }

  private open(object: boolean, pos: number, sink: CallSink): number {
    this.stack.push(object);
    sink.args(object ? '{' : '[');
    this.pendingComma = false;
    this.state = object ? 'key' : 'value';
    return pos + 1;
  }

  private close(object: boolean, pos: number, sink: CallSink): number | CodecResult {
    if (this.stack.pop() !== object) return fail(pos, 'PARSE_BAD_ARGS_JSON', `unbalanced "${object ? '}' : ']'}"`);
    if (this.pendingComma) sink.warn('PARSE_BAD_ARGS_JSON', 'a trailing comma before a closing bracket; ignored', pos);
    this.pendingComma = false;
    sink.args(object ? '}' : ']');
    this.state = 'after';
    return this.stack.length === 0 ? { status: 'done', pos: pos + 1 } : pos + 1;
  }

  /** Writes the comma owed to the item that starts now. */
  private item(sink: CallSink): void {
    if (this.pendingComma) sink.args(',');
    this.pendingComma = false;
  }

  /**
   * String text up to the closing delimiter, streamed as escaped fragments. Returns the position after the delimiter,
   * or `-(stop + 1)` when more text is needed, `stop` being where a possible partial delimiter begins.
   */
  private readString(buf: string, pos: number, sink: CallSink): number {
    const close = buf.indexOf(this.delimiter, pos);
    const stop = close >= 0 ? close : buf.length - this.partialDelimiter(buf, pos);
    parseWork.chars += stop - pos;
    if (close < 0) {
      const fragment = this.openFragment(buf.slice(pos, stop));
      if (fragment.length > 0) sink.args(fragment);
      return -stop - 1;
    }
    const text = this.held + buf.slice(pos, close);
    this.held = '';
    if (this.state === 'quoted-key') {
      sink.args(`${escapeFragment(text)}":`);
      this.state = 'colon';
      return close + this.delimiter.length;
    }
    sink.args(`${escapeFragment(text)}"`);
    this.state = 'after';
    return close + this.delimiter.length;
  }

  /**
   * The fast lane: a chunk inside a string value that does not hold its closing delimiter; one that ends in the start
   * of it only with `hold` (that tail is held, as readString holds it).
   */
  extend(chunk: string, hold?: LaneHold): string | undefined {
    if (this.state !== 'string' || chunk.includes(this.delimiter)) return undefined;
    const partial = this.partialDelimiter(chunk, 0);
    if (partial > 0) {
      if (hold === undefined) return undefined;
      hold.chars = partial;
      chunk = chunk.slice(0, -partial);
    }
    parseWork.chars += chunk.length;
    return this.openFragment(chunk);
  }

  /** Text of a string whose close is not in sight, as its escaped fragment ('' when all of it is held). */
  private openFragment(piece: string): string {
    let text = this.held + piece;
    this.held = '';
    const last = text.charCodeAt(text.length - 1);
    // Half a surrogate pair escaped alone would differ from the whole character escaped at once.
    if (isHighSurrogate(last)) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text.length > 0 ? escapeFragment(text) : '';
  }

  /**
   * Scans a bare key or literal on from `pos` into `token`; returns where it ends (`buf[end]` is what ended it) or,
   * with `more`, where scanning stopped (the end, or a possible partial delimiter).
   */
  private readToken(buf: string, pos: number, final: boolean): { at: number; more: boolean } {
    let i = pos;
    let more = true;
    for (;;) {
      TOKEN_TEXT.lastIndex = i;
      TOKEN_TEXT.test(buf);
      i = TOKEN_TEXT.lastIndex;
      if (i >= buf.length) break;
      if (buf.charCodeAt(i) !== 60 /* < */) {
        more = false;
        break;
      }
      if (this.startsDelimiter(buf, i, final)) {
        more = buf.length - i < this.delimiter.length;
        break;
      }
      i++;
    }
    this.token += buf.slice(pos, i);
    parseWork.chars += i - pos;
    return { at: i, more };
  }

  /** The token ended at `buf[end]`; writes it and returns where to go on, or why the arguments are broken. */
  private endToken(buf: string, end: number, sink: CallSink): number | CodecResult {
    const c = buf[end]!;
    const text = this.token.trim();
    this.token = '';
    if (this.state === 'bare-key') {
      if (c !== ':' || text === '') return fail(end, 'PARSE_BAD_ARGS_JSON', 'a bare key without ":"');
      this.item(sink);
      sink.args(`${JSON.stringify(text)}:`);
      this.state = 'value';
      return end + 1;
    }
    if (c === '<' && text !== '') return this.repaired(text, end, sink);
    const literal = text === 'true' || text === 'false' || text === 'null' || isJsonNumber(text) || this.nulls.has(text);
    if (!literal && text !== '') {
      // Not a literal: perhaps a string that lost its opening delimiter (`query:Tokyo, Japan<|"|>`), so the comma
      // or colon that ended the token is its text; the closing delimiter decides.
      this.token = `${text}${c}`;
      this.state = 'repair';
      return end + 1;
    }
    if (c !== ',' && c !== '}' && c !== ']') return fail(end, 'PARSE_BAD_ARGS_JSON', `unexpected "${c}" after a bare value`);
    if (this.nulls.has(text)) {
      this.item(sink);
      sink.args('null');
      sink.warn('PARSE_BAD_ARGS_JSON', `"${text}" read as null`, end);
      this.state = 'after';
      return end;
    }
    if (!literal) return fail(end, 'PARSE_BAD_ARGS_JSON', 'an empty value');
    this.item(sink);
    sink.args(text);
    this.state = 'after';
    return end;
  }

  /** `key:text<|"|>`: the model dropped the opening delimiter; the text up to the closing one is the string. */
  private repaired(text: string, at: number, sink: CallSink): number {
    this.item(sink);
    sink.args(JSON.stringify(text));
    sink.warn('PARSE_BAD_ARGS_JSON', 'a string without its opening delimiter; read up to the closing one', at);
    this.state = 'after';
    return at + this.delimiter.length;
  }

  /**
   * A bare value that is no literal, read on to the closing delimiter (the repaired string) or the end of the call
   * (then it was a bare word, as before: not a value). The text is held until then; each feed scans only new text.
   */
  private readRepair(buf: string, pos: number, final: boolean, sink: CallSink): number | CodecResult {
    const hit = this.repairEnds.find(buf, pos);
    const stop = hit ? hit.at : final ? buf.length : this.repairEnds.partialStart(buf, pos);
    this.token += buf.slice(pos, stop);
    if (hit?.marker === this.delimiter) {
      // Only a closing delimiter ends the string: one that opens the next value (`a:x,b:<|"|>y<|"|>`) means the bare
      // word was just that.
      // White space after it is read within MAX_HEADER: past that, as at the end of output (this wait is looked at
      // again from the delimiter on every push, so an unbounded run streamed in small pieces cost quadratic time).
      const after = hit.at + hit.marker.length;
      const next = Math.min(skipSpaces(buf, after, after + MAX_HEADER + 1), buf.length);
      const far = next > after + MAX_HEADER;
      if (!far && next >= buf.length && !final) {
        this.token = this.token.slice(0, this.token.length - (hit.at - pos));
        return { status: 'more', pos };
      }
      if (far || next >= buf.length || ',}]'.includes(buf[next]!)) {
        const text = this.token.trim();
        this.token = '';
        return this.repaired(text, hit.at, sink);
      }
    } else if (!hit && !final) return { status: 'more', pos: stop };
    const word = clipForMessage(this.token, 40, JSON.stringify);
    this.token = '';
    return fail(hit ? hit.at : stop, 'PARSE_BAD_ARGS_JSON', `${word} is not a number, true, false, null or a delimited string`);
  }

  /** Whether `buf[at..]` is the delimiter or, before the end of output, could still become it. */
  private startsDelimiter(buf: string, at: number, final: boolean): boolean {
    const have = Math.min(this.delimiter.length, buf.length - at);
    if (buf.slice(at, at + have) !== this.delimiter.slice(0, have)) return false;
    return have === this.delimiter.length || !final;
  }

  /** Length of the longest tail of `buf[from..]` that is a proper prefix of the delimiter. */
  private partialDelimiter(buf: string, from: number): number {
    for (let n = Math.min(this.delimiter.length - 1, buf.length - from); n > 0; n--) {
      if (this.delimiter.startsWith(buf.slice(buf.length - n))) return n;
    }
    return 0;
  }
}

function fail(pos: number, code: ParseCode, message: string): CodecResult {
  return { status: 'error', pos, code, message };
}

function skipSpaces(buf: string, pos: number, end = buf.length): number {
  end = Math.min(end, buf.length);
  while (pos < end && isSpace(buf.charCodeAt(pos))) pos++;
  return pos;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function isPunctuation(c: string): boolean {
  return c === ':' || c === ',' || c === '}' || c === ']';
}

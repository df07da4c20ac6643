import { pythonLiteralToJson } from '../../args/python-literal.js';
import type { ArgsCodec, CodecContext, CodecResult } from '../grammar.js';
import { skipWhitespace } from '../trim.js';

/** Names longer than this are not a call head (and bound the look-ahead). */
const MAX_NAME = 256;

export interface PythonCallOptions {
  /** What sits between the name and `(`: `.call` for Llama 3 built-ins (`brave_search.call(…)`), `` for `f(…)`. */
  method: string;
}

export type HeadMatch = { end: number; name: string } | false | undefined;

/** `NAME<method>(` at `pos` (after whitespace): its end and name, false if not one, undefined if more text decides. */
export function pythonCallHead(options: PythonCallOptions): (buf: string, pos: number, final: boolean) => HeadMatch {
  const opener = `${options.method}(`;
  return (buf, pos, final) => {
    const start = skipWhitespace(buf, pos);
    let i = start;
    while (i < buf.length && i - start <= MAX_NAME && isNameChar(buf.charCodeAt(i), i === start)) i++;
    if (i - start > MAX_NAME) return false;
    if (i === buf.length) return final ? false : undefined;
    if (i === start) return false;
    const rest = buf.slice(i, i + opener.length);
    if (rest !== opener.slice(0, rest.length)) return false;
    if (rest.length < opener.length) return final ? false : undefined;
    return { end: i + opener.length, name: buf.slice(start, i) };
  };
}

/** Whether the text starts `NAME<method>(` (undefined while more text could decide): a CodecChoice test. */
export function startsPythonCall(options: PythonCallOptions): (buf: string, pos: number, final: boolean) => boolean | undefined {
  const head = pythonCallHead(options);
  return (buf, pos, final) => {
    const match = head(buf, pos, final);
    return match === undefined ? undefined : match !== false;
  };
}

/**
 * A call in Python syntax, `NAME<method>(KEY=LITERAL, …)`: Llama 3 built-ins write `brave_search.call(query="x")`,
 * Llama 4 writes `f(k=1)`. The name starts the call; the keyword arguments are read up to the `)` that closes the
 * list (quotes, escapes and brackets tracked in one pass) and each value is parsed as a Python literal, never
 * evaluated. Positional arguments or anything that is not a literal make the call malformed.
 */
export function pythonCall(options: PythonCallOptions): (context: CodecContext) => ArgsCodec {
  const head = pythonCallHead(options);
  return () => {
    let named = false;
    const scan = new ArgumentListScanner();
    return {
      feed(buf, pos, final, sink): CodecResult {
        if (!named) {
          const match = head(buf, pos, final);
          if (match === undefined) return { status: 'more', pos };
          if (match === false) return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: `expected NAME${options.method}(` };
          const refused = sink.start(match.name);
          if (refused) return { status: 'error', pos, code: refused, message: `not a declared tool: ${match.name}` };
          named = true;
          pos = match.end;
        }
        const end = scan.feed(buf, pos);
        if (end === 'bad') return { status: 'error', pos: scan.at, code: 'PARSE_BAD_CALL_SYNTAX', message: 'unexpected character in a Python argument list' };
        if (end === undefined) return { status: 'more', pos: buf.length };
        const json = keywordsToJson(scan.arguments);
        // Reported at the closing parenthesis: the list was complete, so a stop string after it is no truncation.
        if (typeof json !== 'string') return { status: 'error', pos: end - 1, code: 'PARSE_BAD_ARGS_JSON', message: json.message };
        sink.args(json);
        return { status: 'done', pos: end };
      },
    };
  };
}

/** Splits `k=v, k2=v2)` at top-level commas up to the closing parenthesis, across chunks. */
class ArgumentListScanner {
  readonly arguments: string[] = [];
  private current = '';
  private quote = 0;
  private escaped = false;
  private depth = 0;
  /** Where the last feed stopped on a bad character. */
  at = 0;

  /** Returns the offset after `)`, undefined when more text is needed, or 'bad'. */
  feed(buf: string, pos: number): number | undefined | 'bad' {
    let from = pos;
    for (let i = pos; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (this.quote !== 0) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === this.quote) this.quote = 0;
        continue;
      }
      if (c === 34 /* " */ || c === 39 /* ' */) this.quote = c;
      else if (c === 40 /* ( */ || c === 91 /* [ */ || c === 123 /* { */) this.depth++;
      else if ((c === 93 /* ] */ || c === 125 /* } */) && this.depth > 0) this.depth--;
      else if (c === 41 /* ) */) {
        if (this.depth > 0) this.depth--;
        else {
          this.current += buf.slice(from, i);
          this.arguments.push(this.current);
          return i + 1;
        }
      } else if (c === 44 /* , */ && this.depth === 0) {
        this.arguments.push(this.current + buf.slice(from, i));
        this.current = '';
        from = i + 1;
      } else if (c === 60 /* < */ || c === 93 || c === 125) {
        // No literal holds these outside a string: a special token or a stray closer ends the list badly.
        this.at = i;
        return 'bad';
      }
    }
    this.current += buf.slice(from);
    return undefined;
  }
}

/** `["k=v", " k2 = 'x'"]` → `{"k":v,"k2":"x"}`; a trailing comma is allowed. */
function keywordsToJson(pieces: readonly string[]): string | { message: string } {
  const entries: string[] = [];
  const seen = new Set<string>();
  const last = pieces.length - 1;
  for (let index = 0; index <= last; index++) {
    const piece = pieces[index]!;
    if (index === last && piece.trim() === '') continue;
    const eq = piece.indexOf('=');
    const key = eq < 0 ? '' : piece.slice(0, eq).trim();
    const value = isName(key) && !seen.has(key) ? pythonLiteralToJson(piece.slice(eq + 1)) : undefined;
    if (!value) return { message: 'the arguments are not KEY=LITERAL pairs (distinct keys, Python literals)' };
    seen.add(key);
    entries.push(`${JSON.stringify(key)}:${value.json}`);
  }
  return `{${entries.join(',')}}`;
}

function isName(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isNameChar(text.charCodeAt(i), i === 0)) return false;
  return true;
}

function isNameChar(c: number, first: boolean): boolean {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return letter || (!first && c >= 48 && c <= 57);
}

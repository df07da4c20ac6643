import { coerceValue, jsonStringFragment, valueKind } from '../../args/coerce.js';
import type { JsonSchema } from '../../../types.js';
import type { ArgsCodec, CallSink, CodecContext, CodecFactory, CodecResult } from '../grammar.js';
import { MAX_HEADER } from '../headers.js';
import { MarkerSet } from '../markers.js';
import { skipWhitespace } from '../trim.js';

export interface TaggedArgsSyntax {
  /** Opens a key (`<parameter=`, `<arg_key>`). */
  keyOpen: string;
  /** Ends the key (`>`, `</arg_key>`). */
  keyClose: string;
  /** Opens the value after the key, if the syntax has one (`<arg_value>`). */
  valueOpen?: string;
  /** Ends the value (`</parameter>`, `</arg_value>`). */
  valueClose: string;
  /** Markers that also end a value whose close tag is missing; not consumed. */
  valueImplicitEnds: readonly string[];
  /** Markers that end the argument list; `consume: false` leaves it for the call close. */
  argsEnd: readonly { marker: string; consume: boolean }[];
  /** Strip exactly one leading and one trailing newline of each raw value (the template's wrapping). */
  stripOneNewline: boolean;
}

type State = 'between' | 'key' | 'value-open' | 'value';

/**
 * Raw key/value arguments (Qwen3-Coder and Seed-OSS `<parameter=K>v</parameter>`, GLM
 * `<arg_key>K</arg_key><arg_value>V</arg_value>`) turned into JSON text as they arrive: string-typed values
 * stream as JSON-escaped fragments, typed values are coerced by schema at their end tag.
 */
export function taggedArgs(syntax: TaggedArgsSyntax): CodecFactory {
  const valueEnds = new MarkerSet([syntax.valueClose, ...syntax.valueImplicitEnds]);
  const keyClose = new MarkerSet([syntax.keyClose]);
  const betweenMarkers = [syntax.keyOpen, ...syntax.argsEnd.map((e) => e.marker)];
  return (context: CodecContext) => new TaggedArgsCodec(syntax, context, valueEnds, keyClose, betweenMarkers);
}

class TaggedArgsCodec implements ArgsCodec {
  private state: State = 'between';
  private opened = false;
  private count = 0;
  private readonly seen = new Set<string>();
  private key = '';
  private schema: JsonSchema | undefined;
  private streamString = false;
  private skipValue = false;
  private valueFresh = true;
  private heldTail = '';
  private rawParts: string[] = [];

  constructor(
    private readonly syntax: TaggedArgsSyntax,
    private readonly context: CodecContext,
    private readonly valueEnds: MarkerSet,
    private readonly keyClose: MarkerSet,
    private readonly betweenMarkers: readonly string[],
  ) {}

  feed(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult {
    if (!this.opened) {
      sink.args('{');
      this.opened = true;
    }
    for (;;) {
      switch (this.state) {
        case 'between': {
          pos = skipWhitespace(buf, pos);
          if (pos >= buf.length) return { status: 'more', pos };
          if (buf.startsWith(this.syntax.keyOpen, pos)) {
            pos += this.syntax.keyOpen.length;
            this.state = 'key';
            break;
          }
          const end = this.syntax.argsEnd.find((e) => buf.startsWith(e.marker, pos));
          if (end) {
            sink.args('}');
            return { status: 'done', pos: end.consume ? pos + end.marker.length : pos };
          }
          if (!final && this.betweenMarkers.some((m) => m.startsWith(buf.slice(pos, pos + m.length)) && buf.length - pos < m.length)) {
            return { status: 'more', pos };
          }
          return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: `expected ${this.syntax.keyOpen} or the end of the arguments` };
        }
        case 'key': {
          const hit = this.keyClose.find(buf, pos);
          if (!hit || hit.at - pos > MAX_HEADER) {
            if (buf.length - pos > MAX_HEADER) return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: 'unterminated argument key' };
            return { status: 'more', pos };
          }
          const key = buf.slice(pos, hit.at).trim();
          if (key.length === 0) return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: 'empty argument key' };
          this.beginValue(key, pos, sink);
          pos = hit.at + hit.marker.length;
          this.state = this.syntax.valueOpen ? 'value-open' : 'value';
          break;
        }
        case 'value-open': {
          const open = this.syntax.valueOpen!;
          pos = skipWhitespace(buf, pos);
          if (buf.startsWith(open, pos)) {
            pos += open.length;
            this.state = 'value';
            break;
          }
          if (buf.length - pos < open.length && open.startsWith(buf.slice(pos))) return { status: 'more', pos };
          return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: `expected ${open}` };
        }
        case 'value': {
          const hit = this.valueEnds.find(buf, pos);
          const limit = hit ? hit.at : final ? buf.length : this.valueEnds.partialStart(buf, pos);
          if (limit > pos) this.addValueText(buf.slice(pos, limit), sink);
          pos = limit;
          if (!hit) return { status: 'more', pos };
          if (hit.marker === this.syntax.valueClose) pos += hit.marker.length;
          this.endValue(sink, hit.at);
          this.state = 'between';
          break;
        }
      }
    }
  }

  private beginValue(key: string, at: number, sink: CallSink): void {
    this.key = key;
    this.valueFresh = true;
    this.heldTail = '';
    this.rawParts = [];
    this.skipValue = this.seen.has(key);
    if (this.skipValue) {
      sink.warn('PARSE_DUPLICATE_ARG', `argument "${key}" given twice; the first value is kept`, at);
      return;
    }
    this.seen.add(key);
    this.schema = this.context.name === undefined ? undefined : this.context.tools.parameterSchema(this.context.name, key);
    this.streamString = valueKind(this.schema) === 'string';
    if (this.streamString) sink.args(`${this.count++ > 0 ? ',' : ''}${JSON.stringify(key)}:"`);
  }

  private addValueText(text: string, sink: CallSink): void {
    if (this.skipValue) return;
    if (this.valueFresh && this.syntax.stripOneNewline && text.charCodeAt(0) === 10) text = text.slice(1);
    this.valueFresh = false;
    if (!this.streamString) {
      this.rawParts.push(text);
      return;
    }
    text = this.heldTail + text;
    // Hold a newline that may be the wrapping one, and half a surrogate pair (escaping it alone would
    // differ from escaping the whole character, so stream and batch would disagree).
    const last = text.charCodeAt(text.length - 1);
    const hold = (this.syntax.stripOneNewline && last === 10) || (last >= 0xd800 && last <= 0xdbff);
    this.heldTail = hold ? text.slice(-1) : '';
    if (hold) text = text.slice(0, -1);
    if (text.length > 0) sink.args(escapeFragment(text));
  }

  private endValue(sink: CallSink, at: number): void {
    if (this.skipValue) return;
    if (this.streamString) {
      const tail = this.heldTail === '\n' && this.syntax.stripOneNewline ? '' : this.heldTail;
      sink.args(tail ? `${jsonStringFragment(tail)}"` : '"');
      return;
    }
    let raw = this.rawParts.join('');
    if (this.syntax.stripOneNewline && raw.charCodeAt(raw.length - 1) === 10) raw = raw.slice(0, -1);
    const coerced = coerceValue(raw, this.schema);
    sink.args(`${this.count++ > 0 ? ',' : ''}${JSON.stringify(this.key)}:${coerced.json}`);
    if (coerced.diagnostic) sink.warn(coerced.diagnostic.code, `${this.key}: ${coerced.diagnostic.message}`, at);
  }
}

/** Longer fragments go straight to JSON.stringify (native), which then wins. */
const SHORT_FRAGMENT = 64;

/**
 * JSON escaping of a string value's fragment. Streamed in small chunks, most fragments need no
 * escaping, and checking that is far cheaper than a JSON.stringify call per chunk.
 */
function escapeFragment(text: string): string {
  if (text.length > SHORT_FRAGMENT) return jsonStringFragment(text);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // What JSON.stringify escapes: quote, backslash, control characters, (lone) surrogates.
    if (c === 34 || c === 92 || c < 32 || (c >= 0xd800 && c <= 0xdfff)) return jsonStringFragment(text);
  }
  return text;
}

import { coerceAdmitted, declaredKindOf, jsonStringFragment, type DeclaredType, type UntypedValues } from '../../args/coerce.js';
import type { AdmittedTypes } from '../../args/schema.js';
import { minifyJson } from '../../args/json-text.js';
import type { ArgsCodec, CallSink, CodecContext, CodecFactory, CodecResult, LaneHold, Wake } from '../grammar.js';
import type { ParseCode } from '../../../types.js';
import { MAX_HEADER, skipHeaderSpace } from '../headers.js';
import { MarkerSet, markerScanWork } from '../markers.js';
import { skipWhitespace } from '../trim.js';
import { escapeFragment } from './escape-fragment.js';
import { parameterTypes } from './parameter-types.js';

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
  /** What opens the block the arguments sit in (`<function=`): inside a string value it nests with its close. */
  blockOpen?: string;
  /**
   * The block's close (an implicit end, `</function>`) ends a value that lost its close tag only when a call or
   * section close, or the end of output, follows it; elsewhere it is text of the value (code that writes the syntax).
   */
  blockCloseNeedsFollower?: boolean;
  /**
   * The key tag holds attributes (DSML `<｜DSML｜parameter name="K" string="true">`): `name` is the one that holds
   * the key; `typing`, if given, the one that declares the value a raw string or JSON text (see declaredKind).
   */
  keyAttributes?: { name: string; typing?: { attribute: string; string: string; json: string } };
  /**
   * Names a model wraps all arguments in (DeepSeek-V3.2: `arguments`, `input`). As the first parameter, undeclared
   * by a declared tool, and holding a JSON object of that tool's declared parameters, it stands for them (vLLM
   * repairs it the same way); otherwise it is an ordinary parameter.
   */
  wrapperKeys?: readonly string[];
  /** What a value with no schema becomes (coerce.ts UntypedValues); default: plain JSON literals are JSON. */
  untypedValues?: UntypedValues;
}

interface KeyTag {
  key: string;
  declared?: DeclaredType;
}

type State = 'between' | 'key' | 'value-open' | 'value';

/**
 * Raw key/value arguments (Qwen3-Coder and Seed-OSS `<parameter=K>v</parameter>`, GLM
 * `<arg_key>K</arg_key><arg_value>V</arg_value>`, MiniMax-M2 `<parameter name="K">`, DSML
 * `<｜DSML｜parameter name="K" string="true">`) turned into JSON text as they arrive: string values stream as
 * JSON-escaped fragments, others are coerced by schema (and the type the key tag declares) at their end tag.
 */
export function taggedArgs(syntax: TaggedArgsSyntax): CodecFactory {
  const valueEnds = new MarkerSet([syntax.valueClose, ...syntax.valueImplicitEnds]);
  // What a declared string value may nest: levels opened by the value (or key) opener and the block opener, and
  // the implicit ends it must weigh (see readDeclaredString).
  const nesting = new MarkerSet([syntax.valueOpen ?? syntax.keyOpen, syntax.valueClose, ...(syntax.blockOpen ? [syntax.blockOpen] : []), ...syntax.valueImplicitEnds]);
  const keyClose = new MarkerSet([syntax.keyClose]);
  const betweenMarkers = [syntax.keyOpen, ...syntax.argsEnd.map((e) => e.marker)];
  return (context: CodecContext) => new TaggedArgsCodec(syntax, context, valueEnds, nesting, keyClose, betweenMarkers);
}

class TaggedArgsCodec implements ArgsCodec {
  private state: State = 'between';
  private opened = false;
  private count = 0;
  private readonly seen = new Set<string>();
  private key = '';
  private declared: DeclaredType | undefined;
  /** The value may be a wrapper of all arguments (TaggedArgsSyntax.wrapperKeys): read whole, decided at its end. */
  private wrapper = false;
  private admitted: AdmittedTypes | undefined;
  private streamString = false;
  /** The value runs to its own close structure (readNestedValue): a string, or a value no schema types. */
  private nestedRead = false;
  /**
   * A close tag followed by a key no schema declares for this value: how far past the close tag the search for that
   * key's own close has got, so a stream that must wait does not search the same text again on every push.
   */
  private probed = 0;
  private skipValue = false;
  private valueFresh = true;
  private heldTail = '';
  /** Nested levels open inside a declared string value: parameters (or values), and blocks (`<function=`). */
  private depth = 0;
  private blockDepth = 0;
  private rawParts: string[] = [];
  /** The key tag keyAt last read ahead (after a close tag), so the key state that follows does not read it again. */
  private peeked: { buf: string; at: number; tag: KeyTag; next: number } | undefined;
  /** Argument text read but not yet given to the sink (flushArgs). */
  private argsText = '';
  /** Set when the last read stopped in keyValueEnds' probe: nothing changes until a value end can have arrived. */
  private wake: Wake | undefined;

  constructor(
    private readonly syntax: TaggedArgsSyntax,
    private readonly context: CodecContext,
    private readonly valueEnds: MarkerSet,
    private readonly nesting: MarkerSet,
    private readonly keyClose: MarkerSet,
    private readonly betweenMarkers: readonly string[],
  ) {}

  feed(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult {
    const result = this.read(buf, pos, final, sink);
    this.flushArgs(sink);
    // Positions are the buffer's: a peeked key is good for this feed only.
    this.peeked = undefined;
    return result;
  }

  /**
   * Argument text is gathered while a feed reads and handed to the sink once, before any warning and at the end:
   * one event for the pieces of a parameter (`,"content":"`, the value, `"`) instead of one each. The events of one
   * push make one delta either way.
   */
  private flushArgs(sink: CallSink): void {
    if (this.argsText.length === 0) return;
    sink.args(this.argsText);
    this.argsText = '';
  }

  private warn(sink: CallSink, code: ParseCode, message: string, at: number): void {
    this.flushArgs(sink);
    sink.warn(code, message, at);
  }

  private read(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult {
    if (!this.opened) {
      this.argsText += '{';
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
          const end = argsEndAt(this.syntax.argsEnd, buf, pos);
          if (end) {
            this.argsText += '}';
            return { status: 'done', pos: end.consume ? pos + end.marker.length : pos };
          }
          if (!final && this.betweenMarkers.some((m) => m.startsWith(buf.slice(pos, pos + m.length)) && buf.length - pos < m.length)) {
            return { status: 'more', pos };
          }
          return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: `expected ${this.syntax.keyOpen} or the end of the arguments` };
        }
        case 'key': {
          const peeked = this.peeked;
          this.peeked = undefined;
          let tag: KeyTag;
          let next: number;
          if (peeked !== undefined && peeked.buf === buf && peeked.at === pos) {
            ({ tag, next } = peeked);
          } else {
            const hit = this.keyClose.find(buf, pos);
            if (!hit || hit.at - pos > MAX_HEADER) {
              // Unterminated only once a close starting within MAX_HEADER could no longer be in the buffer, whole: a
              // stream that has a close's first characters at MAX_HEADER waits for the rest, as a batch sees it.
              if (buf.length - pos >= MAX_HEADER + this.syntax.keyClose.length) {
                return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: 'unterminated argument key' };
              }
              return { status: 'more', pos };
            }
            tag = readKeyTag(buf.slice(pos, hit.at), this.syntax);
            next = hit.at + hit.marker.length;
          }
          if (tag.key.length === 0) return { status: 'error', pos, code: 'PARSE_BAD_CALL_SYNTAX', message: 'empty argument key' };
          this.beginValue(tag, pos, sink);
          pos = next;
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
          if (this.nestedRead) {
            // A string (or untyped) value runs to its own close structure, so code that writes this very syntax survives.
            this.wake = undefined;
            const read = this.readNestedValue(buf, pos, final);
            pos = read.pos;
            if (!read.closed) return this.wake ? { status: 'more', pos, wake: this.wake } : { status: 'more', pos };
            this.endValue(sink, pos);
            this.state = 'between';
            break;
          }
          const hit = this.valueEnds.find(buf, pos);
          const limit = hit ? hit.at : final ? buf.length : this.valueEnds.partialStart(buf, pos);
          if (limit > pos) this.addValueText(buf.slice(pos, limit));
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

  /**
   * A string value (declared by the schema, or untyped: no schema says otherwise) ends only at its own close
   * structure, so code that writes this very syntax (a parser fixture, a template) survives: levels the value opens
   * itself (`<parameter=`, `<function=`) close inside it, balanced, schema or not; its close tag counts only when
   * followed, after white space, by the end of the arguments, the end of output, or a key that is the next parameter
   * (one the schema declares, or else one whose own value then closes properly). A missing close tag is still
   * recovered (vLLM, SGLang): the value also ends, at its own level, before the key of another declared parameter
   * (any new key when there is no schema) or before the end of the block when the call's close or the end of output
   * follows it.
   */
  private readNestedValue(buf: string, pos: number, final: boolean): { pos: number; closed: boolean } {
    const { valueClose, keyOpen, blockOpen } = this.syntax;
    for (;;) {
      const hit = this.nesting.find(buf, pos);
      if (!hit) {
        const limit = final ? buf.length : this.nesting.partialStart(buf, pos);
        if (limit > pos) this.addValueText(buf.slice(pos, limit));
        return { pos: limit, closed: final };
      }
      if (hit.at > pos) this.addValueText(buf.slice(pos, hit.at));
      pos = hit.at + hit.marker.length;
      const level = this.depth + this.blockDepth;
      if (hit.marker === valueClose) {
        const next = skipHeaderSpace(buf, pos);
        if (this.depth > 0) {
          // A close tag right before another declared parameter's key is this value's own, whatever it nested.
          const key = next === undefined ? undefined : this.keyAt(buf, next, final);
          if (key === 'more') return { pos: hit.at, closed: false };
          if (key !== undefined && this.isOtherParameter(key)) return { pos, closed: true };
          this.depth--;
        } else {
          // White space past MAX_HEADER: nothing follows within reach, as at the end of output (see followerAfterSpace).
          if (next === undefined) return { pos, closed: true };
          const follows = this.followerAt(buf, next, final);
          const closes = follows && this.nextParameterAt(buf, hit.at, next, final);
          if (follows === undefined || closes === 'more') return { pos: hit.at, closed: false };
          if (closes) return { pos, closed: true };
        }
      } else if (hit.marker === blockOpen) {
        this.blockDepth++;
      } else if (hit.marker === keyOpen && this.syntax.valueImplicitEnds.includes(keyOpen)) {
        const key = this.keyAt(buf, hit.at, final);
        if (key === 'more') return { pos: hit.at, closed: false };
        if (level === 0 && key !== undefined && this.endsValue(key)) {
          // With a schema, a declared key ends the value; without one, a new key does when its own value then ends
          // as a parameter's (else it is markup the value holds, balanced).
          const ends = this.isOtherParameter(key) || this.keyValueEnds(buf, hit.at, hit.at, final);
          if (ends === 'more') return { pos: hit.at, closed: false };
          if (ends) return { pos: hit.at, closed: true };
        }
        this.depth++;
      } else if (this.syntax.valueImplicitEnds.includes(hit.marker)) {
        // The end of the block (`</function>`): its own level's, or the end of a value that lost its close tag.
        if (this.blockDepth > 0) this.blockDepth--;
        else if (this.depth === 0) {
          const ends = this.blockEndsAt(buf, pos, final);
          if (ends === undefined) return { pos: hit.at, closed: false };
          if (ends) return { pos: hit.at, closed: true };
        }
      } else {
        this.depth++;
      }
      this.addValueText(hit.marker);
    }
  }

  /** The key named by a key opener at `at`; 'more' when the text ends before it is known. */
  private keyAt(buf: string, at: number, final: boolean): string | 'more' | undefined {
    const { keyOpen, keyClose } = this.syntax;
    if (!buf.startsWith(keyOpen, at)) {
      return !final && buf.length - at < keyOpen.length && keyOpen.startsWith(buf.slice(at)) ? 'more' : undefined;
    }
    const from = at + keyOpen.length;
    // Only as far as a key can reach: a value full of openers must not be rescanned to its end for each one.
    const window = buf.slice(from, from + MAX_HEADER + keyClose.length);
    const end = window.indexOf(keyClose);
    markerScanWork.chars += end < 0 ? window.length : end;
    if (end < 0) return !final && window.length < MAX_HEADER + keyClose.length ? 'more' : undefined;
    const tag = readKeyTag(window.slice(0, end), this.syntax);
    // The same window the key state searches (a close within MAX_HEADER), so that state may take this reading.
    this.peeked = { buf, at: from, tag, next: from + end + keyClose.length };
    return tag.key;
  }

  /**
   * Whether the key at `next`, right after a close tag at `closeAt`, makes that tag the value's own close: a key the
   * schema declares does; another key (undeclared, repeated, or any key with no schema) only if its own value then
   * closes properly, so `</parameter>` followed by `<parameter=mode>` inside code stays text. Not a key (the end of
   * the arguments) does. 'more' when the text ends before that is known.
   */
  private nextParameterAt(buf: string, closeAt: number, next: number, final: boolean): boolean | 'more' {
    if (!buf.startsWith(this.syntax.keyOpen, next)) return true;
    const key = this.keyAt(buf, next, final);
    if (key === 'more') return 'more';
    if (key === undefined || this.isOtherParameter(key)) return true;
    return this.keyValueEnds(buf, closeAt, next, final);
  }

  /**
   * Whether the value of the key whose opener is at `next` ends as a parameter's value does: at its close tag before
   * the next key, the end of the arguments or of output; at another key (it lost its close tag too); or at the block's
   * end where that may end a value. Otherwise it is text inside the value being read. `anchor` is where the reader
   * resumes if the text ends first ('more'); the search resumes where it stopped, relative to it.
   */
  private keyValueEnds(buf: string, anchor: number, next: number, final: boolean): boolean | 'more' {
    const valueFrom = next + this.syntax.keyOpen.length;
    // Resumes where the previous push stopped (a marker may straddle that point, hence the overlap).
    const from = Math.max(valueFrom, anchor + this.probed - this.valueEnds.longest);
    // Undecided text stays in the stream's buffer, so the wait is bounded: a key whose value does not end within
    // PROBE_LIMIT characters is taken as text of the value being read, whatever comes later.
    const limit = valueFrom + PROBE_LIMIT;
    for (let at = from; ; ) {
      const end = this.valueEnds.findWithin(buf, at, Math.min(buf.length, limit));
      if (!end) {
        if (final || buf.length >= limit) return this.settleProbe(false);
        this.probed = buf.length - anchor;
        this.wake = { markers: this.valueEnds, within: limit - buf.length };
        return 'more';
      }
      const after = end.at + end.marker.length;
      const ends =
        end.marker === this.syntax.valueClose
          ? this.followerAfterSpace(buf, after, final)
          : end.marker === this.syntax.keyOpen || this.blockEndsAt(buf, after, final);
      if (ends === undefined) {
        this.probed = end.at - anchor;
        return 'more';
      }
      // A block close that ends nothing is text of that value too (blockEndsAt); a close tag decides either way.
      if (ends || end.marker === this.syntax.valueClose) return this.settleProbe(ends);
      at = after;
    }
  }

  private settleProbe(verdict: boolean): boolean {
    this.probed = 0;
    return verdict;
  }

  /** Whether the block close just read (ending at `after`) ends a value that lost its close tag. */
  private blockEndsAt(buf: string, after: number, final: boolean): boolean | undefined {
    if (!this.syntax.blockCloseNeedsFollower) return true;
    const next = skipHeaderSpace(buf, after);
    if (next === undefined) return true;
    if (next >= buf.length) return final ? true : undefined;
    if (this.context.followers.at(buf, next) !== undefined) return true;
    return !final && this.context.followers.couldStartAt(buf, next) ? undefined : false;
  }

  /** A key that ends the value being read even though its close tag is missing: the next parameter. */
  private endsValue(key: string): boolean {
    const name = this.context.name;
    if (name !== undefined && this.context.tools.parameters(name) !== undefined) return this.isOtherParameter(key);
    // No schema to ask (vLLM, SGLang): any key not given yet.
    return key !== this.key && !this.seen.has(key);
  }

  /** A declared parameter of this tool other than the one being read, not given yet: its key ends the value. */
  private isOtherParameter(key: string): boolean {
    const name = this.context.name;
    return name !== undefined && key !== this.key && !this.seen.has(key) && parameterTypes(this.context.tools, name, key).schema !== undefined;
  }

  /**
   * followerAt past the white space after a close tag (`</parameter>` waits on what follows it): white space longer
   * than MAX_HEADER counts as the end of output would (true). The verdict is looked for again from the tag on every push
   * until it is known, so white space skipped without a bound (a megabyte of newlines after a close tag, streamed) cost
   * quadratic time; with the bound, every chunking decides at the same character.
   */
  private followerAfterSpace(buf: string, after: number, final: boolean): boolean | undefined {
    const next = skipHeaderSpace(buf, after);
    return next === undefined ? true : this.followerAt(buf, next, final);
  }

  /** Whether a value may end before `at`: true, false, or undefined when more text must come to tell. */
  private followerAt(buf: string, at: number, final: boolean): boolean | undefined {
    if (at >= buf.length) return final ? true : undefined;
    const hit = markerOrCutAt(buf, at, this.betweenMarkers, final);
    return hit === null ? undefined : hit !== undefined;
  }

  private beginValue({ key, declared }: KeyTag, at: number, sink: CallSink): void {
    this.key = key;
    this.declared = declared;
    this.depth = 0;
    this.blockDepth = 0;
    this.valueFresh = true;
    this.heldTail = '';
    this.rawParts = [];
    this.skipValue = this.seen.has(key);
    if (this.skipValue) {
      this.warn(sink, 'PARSE_DUPLICATE_ARG', `argument "${key}" given twice; the first value is kept`, at);
      return;
    }
    this.seen.add(key);
    const types = parameterTypes(this.context.tools, this.context.name, key);
    this.admitted = types.admitted;
    this.wrapper = this.syntax.wrapperKeys !== undefined && this.mayWrap(key);
    const kind = declared === undefined ? types.kind : declaredKindOf(types.admitted, declared);
    this.streamString = !this.wrapper && kind === 'string';
    this.nestedRead = !this.wrapper && (kind === 'string' || kind === 'unknown');
    this.probed = 0;
    if (this.streamString) this.argsText += `${this.count++ > 0 ? ',' : ''}${JSON.stringify(key)}:"`;
  }

  private mayWrap(key: string): boolean {
    const name = this.context.name;
    if (name === undefined || this.count > 0 || !this.syntax.wrapperKeys?.includes(key)) return false;
    return this.context.tools.parameters(name) !== undefined && parameterTypes(this.context.tools, name, key).schema === undefined;
  }

  /** Writes a wrapper's object as the arguments themselves, when it holds only declared parameters. */
  private unwrap(raw: string, sink: CallSink, at: number): boolean {
    const text = raw.trim();
    if (text.charCodeAt(0) !== 123 /* { */) return false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
    const keys = Object.keys(value as object);
    const name = this.context.name!;
    if (keys.length === 0 || !keys.every((key) => this.context.tools.parameterSchema(name, key) !== undefined)) return false;
    this.argsText += minifyJson(text).slice(1, -1);
    this.count++;
    for (const key of keys) this.seen.add(key);
    this.warn(sink, 'PARSE_ARGS_UNWRAPPED', `every argument was given inside "${this.key}"; its object is used as the arguments`, at);
    return true;
  }

  /**
   * The fast lane: a chunk inside a streamed string value that holds no marker; with `hold`, one that ends in a
   * possible marker start too (that tail is held, as readNestedValue holds it), a close tag still undecided
   * (holdClose), and the structure between values (holdStructure).
   */
  extend(chunk: string, hold?: LaneHold): string | undefined {
    if (this.state !== 'value') return hold === undefined ? undefined : this.holdStructure(chunk, hold);
    if (!this.nestedRead) return undefined;
    if (this.streamString && !this.skipValue && !this.valueFresh && !this.nesting.mayStartIn(chunk)) return this.streamedFragment(chunk);
    return hold === undefined ? undefined : this.extendAtMarker(chunk, hold);
  }

  /** The lane's rarer cases, kept out of extend so that the common one stays small: a chunk with a possible marker. */
  private extendAtMarker(chunk: string, hold: LaneHold): string | undefined {
    if (this.depth === 0 && this.nesting.at(chunk, 0) === this.syntax.valueClose) return this.holdClose(chunk, hold);
    if (!this.streamString || this.skipValue || this.valueFresh) return undefined;
    const end = this.nesting.find(chunk, 0) !== undefined ? -1 : this.nesting.partialStart(chunk, 0);
    if (end < 0 || end === chunk.length) return undefined;
    hold.chars = chunk.length - end;
    return end === 0 ? '' : this.streamedFragment(chunk.slice(0, end));
  }

  /**
   * The fast lane between values: white space, or part of a tag (a key, its close, the value opener) that feed would
   * wait on with 'more'. The white space is taken, the tag's start held, nothing settled. A chunk that completes a tag
   * decides something and goes to feed. (These pushes were a tagged stream's general-way ones, at ~10× a lane push.)
   */
  private holdStructure(text: string, hold: LaneHold): string | undefined {
    if (!this.opened || text.length > MAX_HEADER) return undefined;
    if (this.state === 'key') {
      if (this.keyClose.find(text, 0) !== undefined) return undefined;
      hold.chars = text.length;
      return '';
    }
    const pos = skipWhitespace(text, 0);
    const rest = text.length - pos;
    if (rest === 0) return '';
    const tags = this.state === 'between' ? this.betweenMarkers : [this.syntax.valueOpen!];
    if (tags.some((tag) => text.startsWith(tag, pos)) || !tags.some((tag) => rest < tag.length && tag.startsWith(text.slice(pos)))) return undefined;
    hold.chars = rest;
    return '';
  }

  /**
   * The fast lane at a string value's close tag (at the front of `text`, at the value's own level), whose verdict
   * waits on what follows it (readNestedValue): white space, part of a follower, or a key tag not yet closed. While
   * that is all `text` holds, feed would return 'more' at the tag again, so all of it is held; a chunk that could
   * decide (a complete follower or key) goes to feed.
   */
  private holdClose(text: string, hold: LaneHold): string | undefined {
    const next = skipHeaderSpace(text, this.syntax.valueClose.length);
    // White space past MAX_HEADER decides (readNestedValue): feed reads it.
    if (next === undefined) return undefined;
    let undecided = next >= text.length;
    if (!undecided) {
      // As followerAt reads it: the first marker the text starts with decides, a proper prefix of one waits.
      const hit = markerOrCutAt(text, next, this.betweenMarkers, false);
      if (hit === null) undecided = true;
      else if (hit !== undefined) {
        if (hit !== this.syntax.keyOpen) return undefined;
        // As keyAt reads it: a key with no close yet (within MAX_HEADER) waits.
        const from = next + hit.length;
        undecided = text.indexOf(this.syntax.keyClose, from) < 0 && text.length - from < MAX_HEADER + this.syntax.keyClose.length;
      }
    }
    if (!undecided) return undefined;
    hold.chars = text.length;
    return '';
  }

  private addValueText(text: string): void {
    if (this.skipValue) return;
    if (this.valueFresh && this.syntax.stripOneNewline && text.charCodeAt(0) === 10) text = text.slice(1);
    this.valueFresh = false;
    if (!this.streamString) {
      this.rawParts.push(text);
      return;
    }
    const fragment = this.streamedFragment(text);
    if (fragment.length > 0) this.argsText += fragment;
  }

  /** A string value's next text as JSON-escaped argument text ('' when all of it is held). */
  private streamedFragment(text: string): string {
    text = this.heldTail + text;
    // Hold a newline that may be the wrapping one, and half a surrogate pair (escaping it alone would
    // differ from escaping the whole character, so stream and batch would disagree).
    const last = text.charCodeAt(text.length - 1);
    const hold = (this.syntax.stripOneNewline && last === 10) || (last >= 0xd800 && last <= 0xdbff);
    this.heldTail = hold ? text.slice(-1) : '';
    if (hold) text = text.slice(0, -1);
    return text.length > 0 ? escapeFragment(text) : '';
  }

  private endValue(sink: CallSink, at: number): void {
    if (this.skipValue) return;
    if (this.streamString) {
      const tail = this.heldTail === '\n' && this.syntax.stripOneNewline ? '' : this.heldTail;
      this.argsText += tail ? `${jsonStringFragment(tail)}"` : '"';
      return;
    }
    let raw = this.rawParts.join('');
    if (this.syntax.stripOneNewline && raw.charCodeAt(raw.length - 1) === 10) raw = raw.slice(0, -1);
    if (this.wrapper && this.unwrap(raw, sink, at)) return;
    const coerced = coerceAdmitted(raw, this.admitted!, this.declared, this.syntax.untypedValues);
    this.argsText += `${this.count++ > 0 ? ',' : ''}${JSON.stringify(this.key)}:${coerced.json}`;
    if (coerced.diagnostic) this.warn(sink, coerced.diagnostic.code, `${this.key}: ${coerced.diagnostic.message}`, at);
  }
}

/** The key (and declared type) a key tag's text names; an empty key when it names none. */
function readKeyTag(text: string, syntax: TaggedArgsSyntax): KeyTag {
  const spec = syntax.keyAttributes;
  if (!spec) return { key: text.trim() };
  const attributes = readAttributes(text);
  const key = attributes.get(spec.name)?.trim() ?? '';
  const { typing } = spec;
  const value = typing ? attributes.get(typing.attribute)?.trim() : undefined;
  // Any other value (or none) declares nothing: the schema alone decides.
  if (value === undefined) return { key };
  if (value === typing!.string) return { key, declared: 'string' };
  return value === typing!.json ? { key, declared: 'json' } : { key };
}

/** `a="x" b="y"` (a key tag is at most MAX_HEADER long); reading stops at the first thing that is not an attribute. */
function readAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  let i = 0;
  for (;;) {
    i = skipWhitespace(text, i);
    const eq = text.indexOf('=', i);
    if (eq < 0) return attributes;
    const name = text.slice(i, eq).trim();
    const open = skipWhitespace(text, eq + 1);
    if (text.charCodeAt(open) !== 34 /* " */) return attributes;
    const close = text.indexOf('"', open + 1);
    if (close < 0 || name.length === 0) return attributes;
    if (!attributes.has(name)) attributes.set(name, text.slice(open + 1, close));
    i = close + 1;
  }
}

/** How far past an undeclared key the value reader looks for that key's own close (nextParameterAt). */
export const PROBE_LIMIT = 16 * 1024;

/**
 * The first of `markers`, in their order, that `buf` holds at `at` (that marker), or of which the rest of `buf` is a
 * proper prefix (null: more text must come to tell; not asked when `final`); undefined when neither. An indexed loop,
 * not for-of: it runs at every value's end, in V8's unoptimised tiers on a first parse.
 */
function markerOrCutAt(buf: string, at: number, markers: readonly string[], final: boolean): string | null | undefined {
  for (let k = 0; k < markers.length; k++) {
    const marker = markers[k]!;
    if (buf.startsWith(marker, at)) return marker;
    if (!final && buf.length - at < marker.length && marker.startsWith(buf.slice(at))) return null;
  }
  return undefined;
}

/** The end of the arguments that starts at `pos`, if any (a loop, not find with a closure: once per call, cold). */
function argsEndAt(ends: TaggedArgsSyntax['argsEnd'], buf: string, pos: number): TaggedArgsSyntax['argsEnd'][number] | undefined {
  for (let k = 0; k < ends.length; k++) if (buf.startsWith(ends[k]!.marker, pos)) return ends[k];
  return undefined;
}

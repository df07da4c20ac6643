import type { ArgsCodec, CallSink, CodecContext, CodecFactory, CodecResult, LaneHold } from '../grammar.js';
import { MAX_HEADER, skipHeaderSpace } from '../headers.js';
import { MarkerSet } from '../markers.js';
import { skipWhitespace } from '../trim.js';
import { NestedValueReader, markerOrCutAt } from './tagged-nested-value.js';
import { readKeyTag, type KeyTag, type TaggedArgsSyntax } from './tagged-syntax.js';

export type { TaggedArgsSyntax } from './tagged-syntax.js';

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
  // the implicit ends it must weigh (see tagged-nested-value.ts, readNestedValue).
  const nesting = new MarkerSet([syntax.valueOpen ?? syntax.keyOpen, syntax.valueClose, ...(syntax.blockOpen ? [syntax.blockOpen] : []), ...syntax.valueImplicitEnds]);
  const keyClose = new MarkerSet([syntax.keyClose]);
  const betweenMarkers = [syntax.keyOpen, ...syntax.argsEnd.map((e) => e.marker)];
  return (context: CodecContext) => new TaggedArgsCodec(syntax, context, valueEnds, nesting, keyClose, betweenMarkers);
}

class TaggedArgsCodec extends NestedValueReader implements ArgsCodec {
  private state: State = 'between';
  private opened = false;

  feed(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult {
    const result = this.read(buf, pos, final, sink);
    this.flushArgs(sink);
    // Positions are the buffer's: a peeked key is good for this feed only.
    this.peeked = undefined;
    return result;
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
          this.beginNestedValue(tag, pos, sink);
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
}

/** The end of the arguments that starts at `pos`, if any (a loop, not find with a closure: once per call, cold). */
function argsEndAt(ends: TaggedArgsSyntax['argsEnd'], buf: string, pos: number): TaggedArgsSyntax['argsEnd'][number] | undefined {
  for (let k = 0; k < ends.length; k++) if (buf.startsWith(ends[k]!.marker, pos)) return ends[k];
  return undefined;
}

import type { CallSink, CodecContext, Wake } from '../grammar.js';
import { MAX_HEADER, skipHeaderSpace } from '../headers.js';
import { markerScanWork, type MarkerSet } from '../markers.js';
import { parameterTypes } from './parameter-types.js';
import { readKeyTag, type KeyTag, type TaggedArgsSyntax } from './tagged-syntax.js';
import { TaggedValueWriter } from './tagged-values.js';

/**
 * Where a string or untyped value ends when it may hold this very syntax (a layer of the tagged-args codec, see
 * TaggedValueWriter): the levels it opens itself, and whether a close tag, a key or the block's end that follows is
 * the value's own end, looking ahead as far as that takes.
 */
export abstract class NestedValueReader extends TaggedValueWriter {
  /**
   * A close tag followed by a key no schema declares for this value: how far past the close tag the search for that
   * key's own close has got, so a stream that must wait does not search the same text again on every push.
   */
  private probed = 0;
  /** Nested levels open inside a declared string value: parameters (or values), and blocks (`<function=`). */
  protected depth = 0;
  private blockDepth = 0;
  /** The key tag keyAt last read ahead (after a close tag), so the key state that follows does not read it again. */
  protected peeked: { buf: string; at: number; tag: KeyTag; next: number } | undefined;
  /** Set when the last read stopped in keyValueEnds' probe: nothing changes until a value end can have arrived. */
  protected wake: Wake | undefined;

  constructor(
    syntax: TaggedArgsSyntax,
    context: CodecContext,
    protected readonly valueEnds: MarkerSet,
    protected readonly nesting: MarkerSet,
    protected readonly keyClose: MarkerSet,
    protected readonly betweenMarkers: readonly string[],
  ) {
    super(syntax, context);
  }

  /** A new value begins at its own level; a value that is read (not a repeated key's, skipped) starts a new probe. */
  protected beginNestedValue(tag: KeyTag, at: number, sink: CallSink): void {
    this.depth = 0;
    this.blockDepth = 0;
    if (this.beginValue(tag, at, sink)) this.probed = 0;
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
  protected readNestedValue(buf: string, pos: number, final: boolean): { pos: number; closed: boolean } {
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
}

/** How far past an undeclared key the value reader looks for that key's own close (nextParameterAt). */
const PROBE_LIMIT = 16 * 1024;

/**
 * The first of `markers`, in their order, that `buf` holds at `at` (that marker), or of which the rest of `buf` is a
 * proper prefix (null: more text must come to tell; not asked when `final`); undefined when neither. An indexed loop,
 * not for-of: it runs at every value's end, in V8's unoptimised tiers on a first parse.
 */
export function markerOrCutAt(buf: string, at: number, markers: readonly string[], final: boolean): string | null | undefined {
  for (let k = 0; k < markers.length; k++) {
    const marker = markers[k]!;
    if (buf.startsWith(marker, at)) return marker;
    if (!final && buf.length - at < marker.length && marker.startsWith(buf.slice(at))) return null;
  }
  return undefined;
}

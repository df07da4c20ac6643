import type { Diagnostic, ParseCode } from '../../types.js';
import type { CoreFactory, CoreOptions, ParseEvent, ParserCore, RunKind, ToolIndex } from '../core.js';
import { compileGrammar, prefixOpensReasoning, type CompiledGrammar } from './compiled.js';
import type { ArgsCodec, CallSink, Grammar, LaneHold, Wake } from './grammar.js';
import type { MarkerSet } from './markers.js';
import { TextBuffer } from './text-buffer.js';
import { parseWork } from './work.js';
import { StreamTrimmer, isWhitespace, skipWhitespace } from './trim.js';

/** The most held text the fast lane reads again in front of a chunk (longer holds go to push). */
const LANE_HELD = 64;

type Mode = 'content' | 'reasoning' | 'section' | 'section-text' | 'header' | 'args' | 'tail' | 'skip' | 'after' | 'failing' | 'aside' | 'separated';

/**
 * A call (or section) that opened inside open reasoning. It is a real call if reasoning never closes
 * after it (end of output, a stop string or another call follows), and a draft — reasoning text — if
 * prose or the reasoning close follows, or if it does not parse. Until then its events are queued.
 */
interface Tentative {
  events: ParseEvent[];
  raw: TextBuffer;
  /** Completion offset where the tentative text starts. */
  start: number;
  /** Offset (into raw) just after the latest call/section opener: where prose resumes for a failed draft. */
  resume: number;
}

/**
 * The one engine for every marker-based family: a family is a Grammar (data + small codecs).
 *
 * Decisions (FORMATS §0, LESSONS):
 * - Starting state from the prompt tail: a reasoning opener after the last closer → inside reasoning
 *   (a re-emitted opener right at the start is absorbed). A reasoning block may open only before any
 *   content; a stray closer in content is text.
 * - Content = text before, between and after calls; trimmed at structure boundaries and at both ends
 *   (streamed: trailing whitespace is held, never taken back). Stop strings vanish outside arguments.
 * - A call opening inside open reasoning is tentative: real (ending reasoning) if output ends, a stop
 *   string or another call follows it; a draft (reasoning text) if prose, the reasoning close, or a
 *   parse failure follows. Its events are queued until then.
 * - Not a call (undeclared name, no name, broken header): its raw text stays content, diagnostic.
 *   Broken after the call started (bad/non-object arguments, truncation): `call-withdraw` with the raw
 *   text. Either way the rest of the call's text, up to its close tag, stays content; other calls stay.
 *   A complete call whose close tag never came is accepted.
 * - Sections (DeepSeek, Kimi): calls are also accepted without the section opener; noise inside a
 *   section is content; an opener that no call follows is restored verbatim as content.
 */
export function createGrammarCore(grammar: Grammar): CoreFactory {
  const compiled = compileGrammar(grammar);
  return (options) => new GrammarMachine(compiled, options);
}

class GrammarMachine implements ParserCore, CallSink {
  private buf = '';
  private pos = 0;
  /** Completion offset of buf[0]. */
  private base = 0;
  private mode: Mode = 'content';
  private out: ParseEvent[] = [];
  private readonly content = new StreamTrimmer();
  private readonly reasoning = new StreamTrimmer();
  private reasoningMayOpen: boolean;
  private absorbOpener = false;
  /** A reasoning opener was just read: the channel label (Grammar.reasoningLabel) may follow. */
  private labelPending = false;
  private tentative: Tentative | undefined;
  private inSection = false;
  /** The open section held a call (so it is structure, not prose mentioning the opener). */
  private sectionProven = false;
  private sectionOpenLength = 0;
  /** The open call's raw text begins with its section's opener: no call of the section succeeded before it. */
  private sectionLeadInRaw = false;
  /** A failed call restored its section's opener as text, so the section's close is text too (no text is lost). */
  private sectionRestored = false;
  /** Raw text of the open section or call, kept to restore it as content if it is not one. */
  private raw: TextBuffer | undefined;
  private pendingWs = '';
  private failure: { code: ParseCode; message: string } | undefined;
  /** Nothing but whitespace since the last call ended outside a section. */
  private justClosedCall = false;
  private callStart = 0;
  private callStarted = false;
  /** The open call began at its header (Grammar.bareOpen): its close is optional. */
  private bareCall = false;
  /** Where that opener ends (absolute offset). */
  private bareOpenEnd = 0;
  /** The open call began at a leading opener (Grammar.leadingOpen): it may turn out to be plain text. */
  private leadingCall = false;
  /** A call separator and the whitespace after it, held until it is known whether a call follows. */
  private separator = '';
  private codec: ArgsCodec | undefined;
  /**
   * The codec holds text it has examined and waits for a marker (grammar.ts Wake): pushes are parked until one could
   * change something. Without it a long undecided hold (a value whose end decides the previous value's close tag) was
   * re-joined, flattened and re-searched on every push: quadratic in the hold, 100× the batch work at 4-byte chunks.
   */
  private wake: Wake | undefined;
  private nextWake: Wake | undefined;
  private wakeWithin = 0;
  /**
   * The parked pushes, appended to one string (a rope V8 flattens once, when the wait ends): an array joined then
   * cost 8–17% more per push. A wait is bounded (Wake.within), so the rope is too.
   */
  private parked = '';
  /** The last characters before the next push, enough for a wake marker that straddles pushes. */
  private parkedTail = '';
  private readonly grammar: Grammar;
  private readonly tools: ToolIndex;
  private readonly family: string;

  constructor(
    private readonly m: CompiledGrammar,
    options: CoreOptions,
  ) {
    this.grammar = m.grammar;
    this.tools = options.tools;
    this.family = options.family;
    this.reasoningMayOpen = this.grammar.reasoning !== undefined;
    if (prefixOpensReasoning(this.grammar, options.prefix)) {
      this.mode = 'reasoning';
      this.absorbOpener = true;
      this.reasoningMayOpen = false;
      // A prompt that ends right at the opener leaves the channel label to the model.
      const endsAtOpener = this.grammar.reasoning!.open.some((opener) => options.prefix.endsWith(opener));
      this.labelPending = endsAtOpener && this.grammar.reasoningLabel !== undefined;
    }
  }

  runKind: RunKind = 'content';
  private readonly laneHold: LaneHold = { chars: 0 };

  extend(chunk: string): string | undefined {
    if (this.wake !== undefined || this.tentative !== undefined) return undefined;
    // Text held from the last push (a possible marker start) is read again in front of the chunk, as push would join
    // it; only a short hold, so the lane stays O(chunk). The lane may itself end by holding such a tail.
    const held = this.buf.length - this.pos;
    if (held > LANE_HELD) return undefined;
    const text = held === 0 ? chunk : this.buf.slice(this.pos) + chunk;
    this.laneHold.chars = 0;
    let run: string | undefined;
    if (this.mode === 'args') {
      run = this.codec!.extend?.(text, this.laneHold);
      this.runKind = 'call-args';
    } else if (this.mode === 'content') {
      const markers = this.reasoningMayOpen && !this.content.hasText ? this.m.contentAtStart : this.m.content;
      run = this.extendText(this.content, markers, text);
      if (run !== undefined && run.length > 0) this.justClosedCall = false;
      this.runKind = 'content';
    } else if (this.mode === 'reasoning' && !this.labelPending) {
      if (this.reasoning.hasText) this.absorbOpener = false;
      run = this.extendText(this.reasoning, this.absorbOpener ? this.m.reasoningAtStart : this.m.reasoning, text);
      this.runKind = 'reasoning';
    } else if (this.mode === 'header') {
      // A header the reader cannot decide yet: push would join the text and wait, changing nothing else.
      run = this.grammar.header(text, 0, false).status === 'more' ? this.holdAll(text) : undefined;
    } else if (this.mode === 'section' || this.mode === 'after' || this.mode === 'tail') {
      run = this.holdMarkerStart(this.mode === 'section' ? this.m.section : this.mode === 'after' ? this.m.after : this.m.tail, text);
    }
    if (run !== undefined) this.laneTook(text);
    return run;
  }

  /**
   * A text channel's lane: `text` holds no marker, at most the start of one at its end (laneHold then says how long,
   * and that tail is held as `text` would hold it).
   */
  private extendText(channel: StreamTrimmer, markers: MarkerSet, text: string): string | undefined {
    if (!markers.mayStartIn(text)) return channel.push(text);
    if (markers.find(text, 0) !== undefined) return undefined;
    const start = markers.partialStart(text, 0);
    if (start === text.length) return undefined;
    this.laneHold.chars = text.length - start;
    return channel.push(text.slice(0, start));
  }

  /**
   * A structural position (`between`) at what could begin one of its markers, with more text needed to tell: all of
   * `text` is held, as `between` would hold it (a long DeepSeek or Kimi marker streamed in 4-byte pushes takes five).
   */
  private holdMarkerStart(markers: MarkerSet, text: string): string | undefined {
    if (text.length === 0 || isWhitespace(text.charCodeAt(0))) return undefined;
    return markers.at(text, 0) === undefined && markers.couldStartAt(text, 0) ? this.holdAll(text) : undefined;
  }

  /** The lane settles nothing and holds all of `text` for the next push. */
  private holdAll(text: string): string {
    this.laneHold.chars = text.length;
    return '';
  }

  /** As `consume` would: the buffer moves past what the lane took, and an open call keeps that as raw text. */
  private laneTook(text: string): void {
    const kept = this.laneHold.chars;
    parseWork.chars += text.length;
    this.base += this.pos + text.length - kept;
    this.pos = 0;
    if (kept === 0) {
      this.buf = '';
      this.raw?.push(text);
    } else {
      this.buf = text.slice(text.length - kept);
      this.raw?.push(text.slice(0, text.length - kept));
    }
  }

  push(chunk: string): ParseEvent[] {
    if (this.wake !== undefined) {
      this.parked += chunk;
      if (!this.wakes(chunk)) return [];
      chunk = this.unpark();
    }
    return this.run(chunk);
  }

  /**
   * Whether a chunk that arrives while the codec waits (Wake) can change anything: a wake marker ends in it (the
   * window starts far enough back to hold one whole), or the wait's length ran out. Looks at the new text only.
   */
  private wakes(chunk: string): boolean {
    const markers = this.wake!.markers;
    this.wakeWithin -= chunk.length;
    if (this.wakeWithin <= 0) return true;
    // Most waits are a long value streamed in small pushes where no marker can begin: after an empty tail such a push
    // can neither end a marker nor leave the start of one, so there is no window to build, search or keep.
    if (this.parkedTail.length === 0 && !markers.mayStartIn(chunk)) {
      parseWork.chars += chunk.length;
      return false;
    }
    const window = this.parkedTail + chunk;
    parseWork.chars += window.length;
    // A complete marker only: a prefix at the end changes nothing until it completes (the window then holds it whole).
    if (markers.find(window, 0) !== undefined) return true;
    this.parkedTail = straddleTail(window, markers);
    return false;
  }

  /** The parked pushes as one chunk; the wait is over. */
  private unpark(): string {
    const text = this.parked;
    this.parked = '';
    this.parkedTail = '';
    this.wake = undefined;
    return text;
  }

  private run(chunk: string): ParseEvent[] {
    this.out = [];
    this.nextWake = undefined;
    if (this.pos > 0) {
      this.buf = this.buf.slice(this.pos);
      this.base += this.pos;
      this.pos = 0;
    }
    this.buf = this.buf.length === 0 ? chunk : this.buf + chunk;
    // The buffer the push searches: text the machine keeps across pushes is counted again on every push.
    parseWork.chars += this.buf.length;
    while (this.step(false));
    // Only the last step can leave a wake: a codec's 'more' ends the loop.
    const wake = this.nextWake as Wake | undefined;
    if (wake !== undefined) {
      this.wake = wake;
      this.wakeWithin = wake.within;
      this.parkedTail = straddleTail(this.buf, wake.markers);
    }
    return this.out;
  }

  finish(): ParseEvent[] {
    this.out = this.wake !== undefined && this.parked.length > 0 ? this.run(this.unpark()) : [];
    this.wake = undefined;
    for (;;) {
      while (this.step(true));
      if (!this.settleAtEnd()) break;
    }
    this.content.boundary();
    this.reasoning.boundary();
    return this.out;
  }

  // ---- CallSink (used by the argument codecs) ----

  start(name: string, id?: string): ParseCode | undefined {
    const refused = this.refuse(name);
    if (refused) return refused;
    // Two literals, not a spread of an optional id: a first parse runs this once per call in V8's unoptimised tiers,
    // where a spread in a literal defines each property through the runtime.
    this.emit(id === undefined ? { kind: 'call-start', name, start: this.callStart } : { kind: 'call-start', name, id, start: this.callStart });
    this.callStarted = true;
    return undefined;
  }

  args(text: string): void {
    if (text.length > 0) this.emit({ kind: 'call-args', text });
  }

  warn(code: ParseCode, message: string, at: number): void {
    this.emit({ kind: 'diagnostic', diagnostic: this.diagnostic(code, message, this.base + at, 'warning') });
  }

  // ---- the machine ----

  private step(final: boolean): boolean {
    switch (this.mode) {
      case 'content': {
        const atStart = this.reasoningMayOpen && !this.content.hasText;
        return this.text(atStart ? this.m.contentAtStart : this.m.content, this.content, final);
      }
      case 'reasoning': {
        if (this.reasoning.hasText) this.absorbOpener = false;
        if (this.labelPending && !this.skipLabel(final)) return false;
        return this.text(this.absorbOpener ? this.m.reasoningAtStart : this.m.reasoning, this.reasoning, final);
      }
      case 'section':
        return this.between(this.m.section, final);
      case 'after':
        return this.between(this.m.after, final);
      case 'tail':
        return this.between(this.m.tail, final);
      case 'header':
        return this.header(final);
      case 'args':
        return this.argsStep(final);
      case 'skip':
        return this.text(this.m.skip, this.content, final);
      case 'failing':
        return this.decideFailure(final);
      case 'aside':
        return this.text(this.m.aside, this.reasoning, final);
      case 'separated':
        return this.separated(final);
      case 'section-text':
        // Noise before the section's first call is held: it is content if a call follows, and the
        // section opener with it is restored verbatim if none does.
        return this.text(this.m.section, this.sectionProven ? this.content : undefined, final);
    }
  }

  /** Free text up to the next marker of `markers`, holding back a possible partial marker. */
  private text(markers: MarkerSet, channel: StreamTrimmer | undefined, final: boolean): boolean {
    const hit = markers.find(this.buf, this.pos);
    const limit = hit ? hit.at : final ? this.buf.length : markers.partialStart(this.buf, this.pos);
    if (limit > this.pos) {
      const text = this.consume(limit - this.pos);
      if (channel) this.release(channel, text);
    }
    if (!hit) return false;
    this.onMarker(hit.marker);
    return true;
  }

  /** After `call; `: the separator is structure if another call follows, else text. */
  private separated(final: boolean): boolean {
    const start = skipWhitespace(this.buf, this.pos);
    if (start > this.pos) this.separator += this.consume(start - this.pos);
    if (this.pos >= this.buf.length && !final) return false;
    if (this.pos < this.buf.length) {
      if (this.m.separated.at(this.buf, this.pos) !== undefined) {
        // Content mode reads the opener; nothing was released since the call, so a leading opener still counts.
        this.separator = '';
        this.mode = 'content';
        return true;
      }
      if (!final && this.m.separated.couldStartAt(this.buf, this.pos)) return false;
    }
    const text = this.separator;
    this.separator = '';
    this.mode = 'content';
    this.release(this.content, text);
    return true;
  }

  /** Structural positions (inside a section, after arguments, after a tentative call): only markers or space. */
  private between(markers: MarkerSet, final: boolean): boolean {
    const start = skipWhitespace(this.buf, this.pos);
    if (start > this.pos) {
      const space = this.consume(start - this.pos);
      // A section restored as text keeps its spacing too.
      if (this.sectionRestored && this.mode === 'section') this.release(this.content, space, true);
    }
    if (this.pos >= this.buf.length) return false;
    const marker = markers.at(this.buf, this.pos);
    if (marker !== undefined) {
      this.onMarker(marker);
      return true;
    }
    if (!final && markers.couldStartAt(this.buf, this.pos)) return false;
    this.onJunk();
    return true;
  }

  /**
   * Drops the channel label (and a doubled opener) right after a reasoning opener; false while the text so far could
   * still become one of them.
   */
  private skipLabel(final: boolean): boolean {
    const label = this.grammar.reasoningLabel!;
    const pieces = [label, ...this.grammar.reasoning!.open];
    // A loop, not recursion: a model stuck repeating the opener must not grow the stack.
    for (;;) {
      const piece = pieces.find((candidate) => this.buf.startsWith(candidate, this.pos));
      if (piece === undefined) break;
      this.consume(piece.length);
      if (piece === label) {
        this.labelPending = false;
        return true;
      }
    }
    const rest = this.buf.slice(this.pos, this.pos + Math.max(...pieces.map((piece) => piece.length)));
    if (!final && pieces.some((piece) => rest.length < piece.length && piece.startsWith(rest))) return false;
    this.labelPending = false;
    return true;
  }

  private onMarker(marker: string): void {
    const role = this.m.role.get(marker)!;
    const mode = this.mode;
    if (mode === 'section-text' && !this.sectionProven) return this.endSectionNoise(role, marker);
    switch (role) {
      case 'stop':
        if (mode === 'after') this.commit();
        if (mode === 'tail') return this.endCall(false);
        this.consume(marker.length);
        return;
      case 'reasoning-open': {
        // Only before any text: the search set is chosen before the text in front of the hit is released.
        const channel = mode === 'content' ? this.content : this.reasoning;
        const text = this.consume(marker.length);
        if (channel.hasText) return this.release(channel, text);
        this.labelPending = this.grammar.reasoningLabel !== undefined;
        if (mode === 'content') {
          this.mode = 'reasoning';
          this.reasoningMayOpen = false;
        }
        return;
      }
      case 'reasoning-close':
        if (mode === 'after') return this.draft(this.tentative!.raw.length);
        this.consume(marker.length);
        this.reasoning.boundary();
        this.mode = 'content';
        this.content.boundary();
        return;
      case 'separator':
        // Only searched for after a call's arguments. Calls in a section or in open reasoning have their own rules.
        if (this.inSection || this.tentative) return this.onJunk();
        this.endCall(false);
        this.separator = this.consume(marker.length);
        this.mode = 'separated';
        return;
      case 'section-open':
      case 'call-open':
        if (mode === 'content' && this.m.leading.has(marker) && this.content.hasText && !this.justClosedCall) {
          // Not where a call may stand: the opener is prose.
          this.release(this.content, this.consume(marker.length));
          return;
        }
        if (mode === 'reasoning' && this.m.bare.has(marker)) {
          // A bare call in open reasoning is the model thinking aloud: only a real opener ends reasoning.
          this.release(this.reasoning, this.consume(marker.length));
          return;
        }
        if (mode === 'tail') return this.endCall(false);
        if (mode === 'skip') {
          this.mode = this.inSection ? 'section' : 'content';
          return;
        }
        if (mode === 'reasoning') this.tentative = { events: [], raw: new TextBuffer(), start: this.base + this.pos, resume: 0 };
        if (role === 'section-open') this.openSection(marker);
        else this.openCall(marker);
        return;
      case 'section-close':
        if (mode === 'tail') return this.endCall(false);
        if (mode === 'content') {
          // Right after a call whose section opener was implicit, the close is structure; otherwise text.
          const text = this.consume(marker.length);
          if (!this.justClosedCall) this.release(this.content, text);
          return;
        }
        {
          const text = this.consume(marker.length);
          if (this.sectionRestored) this.release(this.content, text, true);
        }
        this.inSection = false;
        this.sectionRestored = false;
        this.raw = undefined;
        return this.afterStructure();
      case 'call-close':
        if (mode === 'skip') {
          this.release(this.content, this.consume(marker.length));
          this.raw = undefined;
          this.mode = this.inSection ? 'section' : 'content';
          return;
        }
        return this.endCall(true);
      case 'tail':
        this.consume(marker.length);
        return;
      case 'aside-open':
      case 'aside-close':
        // An aside in content (e.g. a Seed budget reflection) is reasoning, markers included.
        this.release(this.reasoning, this.consume(marker.length), true);
        this.mode = role === 'aside-open' ? 'aside' : 'content';
        return;
    }
  }

  private onJunk(): void {
    switch (this.mode) {
      case 'after':
        return this.draft(this.tentative!.raw.length);
      case 'tail':
        // A bare call, or one of a grammar without call closers, needs no close: what follows is text again.
        if (this.bareCall || this.m.closeOptional) return this.endCall(false);
        return this.failCall('PARSE_BAD_CALL_SYNTAX', 'unexpected text between the arguments and the call close');
      case 'section':
        if (this.tentative) return this.draft(this.sectionProven ? this.tentative.raw.length : this.tentative.resume);
        // Noise inside a section is kept as content; later calls of the section still count.
        this.mode = 'section-text';
        return;
      default:
        return;
    }
  }

  /** A marker after noise that followed a section opener with no call yet. */
  private endSectionNoise(role: string, marker: string): void {
    if (role === 'call-open') {
      this.release(this.content, String(this.raw ?? '').slice(this.sectionOpenLength), true);
      this.raw = undefined;
      this.openCall(marker);
      return;
    }
    // No call in this section: it was prose that mentions the opener; restore it all, verbatim.
    if (role === 'section-close') this.consume(marker.length);
    this.sectionRestored = false;
    this.inSection = false;
    this.restoreRaw();
    this.mode = 'content';
  }

  private openSection(marker: string): void {
    this.reasoningMayOpen = false;
    this.pendingWs = this.tentative ? '' : this.content.takeHeld();
    this.raw = new TextBuffer();
    this.consume(marker.length);
    this.sectionOpenLength = marker.length;
    if (this.tentative) this.tentative.resume = this.tentative.raw.length;
    this.inSection = true;
    this.sectionProven = false;
    this.sectionRestored = false;
    this.mode = 'section';
  }

  private openCall(marker: string): void {
    this.reasoningMayOpen = false;
    if (this.inSection) this.sectionProven = true;
    if (!this.inSection) this.pendingWs = this.tentative ? '' : this.content.takeHeld();
    // The first call of a section carries the section's opener in its raw text: if it fails, the opener is text too.
    const lead = this.inSection && this.raw !== undefined ? this.raw.toString() : '';
    this.sectionLeadInRaw = lead !== '';
    this.raw = lead ? TextBuffer.of(lead) : new TextBuffer();
    this.callStart = this.base + this.pos;
    this.bareCall = this.m.bare.has(marker);
    this.leadingCall = this.m.leading.has(marker);
    this.bareOpenEnd = this.base + this.pos + marker.length;
    if (!this.bareCall) this.consume(marker.length);
    if (this.tentative) this.tentative.resume = this.tentative.raw.length;
    this.callStarted = false;
    this.codec = undefined;
    this.mode = 'header';
  }

  private header(final: boolean): boolean {
    const result = this.grammar.header(this.buf, this.pos, final);
    if (result.status === 'more') return false;
    if (result.status === 'error') {
      this.consume(Math.max(0, result.at - this.pos));
      this.failing('PARSE_BAD_CALL_SYNTAX', result.message);
      return true;
    }
    if (result.warning !== undefined) this.warn('PARSE_BAD_HEADER', result.warning, this.pos);
    this.consume(result.end - this.pos);
    if (result.anonymous && !result.name && this.tools.declared && this.tools.names.length === 1) {
      // Unambiguous: the one declared tool is the only function the call can mean.
      result.name = this.tools.names[0];
    }
    if (result.name !== undefined) {
      const refused = this.start(result.name, result.id);
      if (refused) {
        this.failCall(refused, refusalMessage(refused, result.name));
        return true;
      }
    }
    this.codec = this.grammar.args({ tools: this.tools, name: result.name, followers: this.m.followers });
    this.mode = 'args';
    return true;
  }

  private argsStep(final: boolean): boolean {
    const result = this.codec!.feed(this.buf, this.pos, final, this);
    if (result.pos > this.pos) this.consume(result.pos - this.pos);
    if (result.status === 'more') {
      this.nextWake = result.wake;
      return false;
    }
    if (result.status === 'error') this.failing(result.code, result.message);
    else if (result.status === 'next') this.nextCall();
    else this.mode = 'tail';
    return true;
  }

  /** The codec ended the open call, if any, and reads on (a JSON list of calls): the next call starts here. */
  private nextCall(): void {
    if (this.callStarted) this.emit({ kind: 'call-end', end: this.base + this.pos });
    this.callStarted = false;
    this.raw = new TextBuffer();
    this.pendingWs = '';
    this.callStart = this.base + this.pos;
  }

  private endCall(consumeClose: boolean): void {
    if (consumeClose) {
      const marker = this.m.tail.at(this.buf, this.pos) ?? this.m.skip.at(this.buf, this.pos) ?? '';
      this.consume(marker.length);
    }
    // A list codec may end its structure after its last call already ended (`next`, then `done`).
    if (this.callStarted) this.emit({ kind: 'call-end', end: this.base + this.pos });
    this.callStarted = false;
    this.codec = undefined;
    this.raw = undefined;
    if (this.inSection) {
      this.mode = 'section';
    } else {
      this.justClosedCall = true;
      this.afterStructure();
    }
  }

  private afterStructure(): void {
    if (this.tentative) {
      this.mode = 'after';
      return;
    }
    this.mode = 'content';
    this.content.boundary();
  }

  /** The open call is not a call: withdraw it (if started) or restore its text; skip to its close. */
  private failCall(code: ParseCode, message: string): void {
    // A bare opener is left for the header; a call that fails on it must still move past it (else it reopens).
    if (this.bareCall && this.base + this.pos < this.bareOpenEnd) this.consume(this.bareOpenEnd - this.base - this.pos);
    if (this.tentative) return this.draft(this.tentative.resume);
    // Text at a leading opener that never became a call is prose that happens to start like one (a JSON answer).
    const severity = this.leadingCall && !this.callStarted && code !== 'PARSE_UNKNOWN_TOOL' ? 'warning' : 'error';
    const diagnostic = this.diagnostic(code, message, this.callStart, severity, this.base + this.pos);
    if (this.sectionLeadInRaw && this.inSection) this.sectionRestored = true;
    if (this.callStarted) {
      const raw = this.content.pushVerbatim(this.pendingWs + String(this.raw ?? ''));
      this.emit({ kind: 'call-withdraw', raw, diagnostic });
      this.justClosedCall = false;
    } else {
      this.emit({ kind: 'diagnostic', diagnostic });
      this.restoreRaw();
    }
    this.pendingWs = '';
    this.callStarted = false;
    this.codec = undefined;
    this.raw = undefined;
    this.mode = 'skip';
  }

  /** A call broke at `pos`; the reason is settled once it is known whether a stop string starts there. */
  private failing(code: ParseCode, message: string): void {
    this.failure = { code, message };
    this.mode = 'failing';
  }

  private decideFailure(final: boolean): boolean {
    // Whether a stop string starts here is unknown until text arrives here (else a split changes the verdict).
    if (!final && (this.pos >= this.buf.length || this.m.skip.couldStartAt(this.buf, this.pos))) return false;
    let { code, message } = this.failure!;
    const marker = this.m.skip.at(this.buf, this.pos);
    if (marker !== undefined && this.m.role.get(marker) === 'stop') {
      // Generation stopped where the call had to go on.
      code = 'PARSE_TRUNCATED_CALL';
      message = 'the output stopped inside a tool call';
    }
    this.failure = undefined;
    this.failCall(code, message);
    return true;
  }

  private restoreRaw(): void {
    this.release(this.content, this.pendingWs + String(this.raw ?? ''), true);
    this.pendingWs = '';
    this.raw = undefined;
  }

  /** The tentative call was real: reasoning ended where it opened. */
  private commit(): void {
    const tentative = this.tentative!;
    this.tentative = undefined;
    this.reasoning.boundary();
    this.reasoningMayOpen = false;
    for (const event of tentative.events) this.out.push(event);
    if (this.mode === 'after') {
      this.mode = 'content';
      this.content.boundary();
    }
  }

  /** The tentative text was a draft: it is reasoning up to `resume`; the rest is read again as reasoning. */
  private draft(resume: number): void {
    const tentative = this.tentative!;
    this.tentative = undefined;
    const text = tentative.raw.toString();
    const message = 'tool-call markup inside reasoning is kept as reasoning text, not run as a call';
    this.emit({ kind: 'diagnostic', diagnostic: this.diagnostic('PARSE_CALL_IN_REASONING', message, tentative.start, 'warning', tentative.start + text.trimEnd().length) });
    this.release(this.reasoning, text.slice(0, resume));
    this.buf = text.slice(resume) + this.buf.slice(this.pos);
    this.base = tentative.start + resume;
    this.pos = 0;
    this.inSection = false;
    this.raw = undefined;
    this.pendingWs = '';
    this.callStarted = false;
    this.codec = undefined;
    this.mode = 'reasoning';
  }

  /** End of output in a structural state; returns true when the machine must run again. */
  private settleAtEnd(): boolean {
    switch (this.mode) {
      case 'after':
        this.commit();
        return false;
      case 'section-text':
        if (!this.sectionProven) this.restoreRaw();
        this.inSection = false;
        this.mode = 'content';
        return false;
      case 'section':
        if (this.tentative && !this.sectionProven) {
          this.draft(this.tentative.resume);
          return true;
        }
        if (this.tentative) this.commit();
        if (!this.sectionProven) this.restoreRaw();
        this.inSection = false;
        this.mode = 'content';
        return false;
      case 'tail':
        if (this.tentative) this.commit();
        this.endCall(false);
        return true;
      case 'header':
      case 'args':
        if (this.tentative) this.commit();
        this.failCall('PARSE_TRUNCATED_CALL', 'the output ended inside a tool call');
        return true;
      default:
        return false;
    }
  }

  // ---- helpers ----

  private consume(n: number): string {
    parseWork.chars += n;
    const piece = n === this.buf.length && this.pos === 0 ? this.buf : this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    if (this.raw) this.raw.push(piece);
    this.tentative?.raw.push(piece);
    return piece;
  }

  /** Text through a channel's trimmer; `verbatim`: restored raw text, never leading-trimmed. */
  private release(channel: StreamTrimmer, text: string, verbatim = false): void {
    const released = verbatim ? channel.pushVerbatim(text) : channel.push(text);
    if (released.length === 0) return;
    this.emit({ kind: channel === this.content ? 'content' : 'reasoning', text: released });
    if (channel === this.content) this.justClosedCall = false;
  }

  private emit(event: ParseEvent): void {
    (this.tentative ? this.tentative.events : this.out).push(event);
  }

  private refuse(name: string): ParseCode | undefined {
    if (name.length === 0) return 'PARSE_BAD_CALL_SYNTAX';
    return this.tools.has(name) ? undefined : 'PARSE_UNKNOWN_TOOL';
  }

  private diagnostic(code: ParseCode, message: string, start: number, severity: Diagnostic['severity'], end = start): Diagnostic {
    return { code, severity, message, span: [start, Math.max(start, end)], family: this.family };
  }
}

/**
 * The end of `text` a marker of `markers` could begin in and finish in a later push: from the first place where what
 * is left is the start of a marker, or none. A stray lead (`<b>` in code, against `</arg_value>`) keeps nothing.
 */
function straddleTail(text: string, markers: MarkerSet): string {
  const start = markers.partialStart(text, 0);
  return start === text.length ? '' : text.slice(start);
}

function refusalMessage(code: ParseCode, name: string): string {
  return code === 'PARSE_UNKNOWN_TOOL' ? `"${name}" is not a declared tool` : 'the call header names no function';
}

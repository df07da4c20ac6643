import type { CoreFactory, ParseEvent, ParserCore, RunKind } from '../core.js';
import { compileGrammar } from './compiled.js';
import type { Grammar, LaneHold, Wake } from './grammar.js';
import { StepMachine } from './machine-steps.js';
import type { MarkerSet } from './markers.js';
import { parseWork } from './work.js';
import { StreamTrimmer, isWhitespace } from './trim.js';

/** The most held text the fast lane reads again in front of a chunk (longer holds go to push). */
const LANE_HELD = 64;

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

/**
 * How text comes in (the top layer of the machine, see MachineState): the fast lane for small streamed chunks, push
 * (parked while the codec waits for a marker), and finish.
 */
class GrammarMachine extends StepMachine implements ParserCore {
  /**
   * The codec holds text it has examined and waits for a marker (grammar.ts Wake): pushes are parked until one could
   * change something. Without it a long undecided hold (a value whose end decides the previous value's close tag) was
   * re-joined, flattened and re-searched on every push: quadratic in the hold, 100× the batch work at 4-byte chunks.
   */
  private wake: Wake | undefined;
  private wakeWithin = 0;
  /**
   * The parked pushes, appended to one string (a rope V8 flattens once, when the wait ends): an array joined then
   * cost 8–17% more per push. A wait is bounded (Wake.within), so the rope is too.
   */
  private parked = '';
  /** The last characters before the next push, enough for a wake marker that straddles pushes. */
  private parkedTail = '';

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
}

/**
 * The end of `text` a marker of `markers` could begin in and finish in a later push: from the first place where what
 * is left is the start of a marker, or none. A stray lead (`<b>` in code, against `</arg_value>`) keeps nothing.
 */
function straddleTail(text: string, markers: MarkerSet): string {
  const start = markers.partialStart(text, 0);
  return start === text.length ? '' : text.slice(start);
}

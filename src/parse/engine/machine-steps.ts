import { CallMachine } from './machine-calls.js';
import type { MarkerSet } from './markers.js';
import { TextBuffer } from './text-buffer.js';
import { StreamTrimmer, skipWhitespace } from './trim.js';

/**
 * The step loop (a layer of GrammarMachine, see MachineState): one handler per mode, reading free text up to the
 * next marker or structure between markers, and what each marker means in the mode that finds it.
 */
export abstract class StepMachine extends CallMachine {
  /** A call separator and the whitespace after it, held until it is known whether a call follows. */
  private separator = '';

  protected step(final: boolean): boolean {
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
}

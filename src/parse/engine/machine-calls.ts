import type { Diagnostic, ParseCode } from '../../types.js';
import type { CallSink } from './grammar.js';
import { MachineState } from './machine-state.js';
import { TextBuffer } from './text-buffer.js';

/**
 * A call's and a section's life in the machine (a layer of GrammarMachine, see MachineState): opening, the header,
 * the arguments through the codec (the CallSink it reports to), the end; a call that is not one, withdrawn or
 * restored as text; a tentative call inside reasoning made real or a draft; and what the end of output settles.
 */
export abstract class CallMachine extends MachineState implements CallSink {
  /** The open call's raw text begins with its section's opener: no call of the section succeeded before it. */
  private sectionLeadInRaw = false;
  private pendingWs = '';
  private failure: { code: ParseCode; message: string } | undefined;
  private callStart = 0;
  private callStarted = false;
  /** Where the bare call's opener ends (absolute offset). */
  private bareOpenEnd = 0;
  /** The open call began at a leading opener (Grammar.leadingOpen): it may turn out to be plain text. */
  private leadingCall = false;

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

  protected openSection(marker: string): void {
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

  protected openCall(marker: string): void {
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

  protected header(final: boolean): boolean {
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

  protected argsStep(final: boolean): boolean {
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

  protected endCall(consumeClose: boolean): void {
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

  protected afterStructure(): void {
    if (this.tentative) {
      this.mode = 'after';
      return;
    }
    this.mode = 'content';
    this.content.boundary();
  }

  /** The open call is not a call: withdraw it (if started) or restore its text; skip to its close. */
  protected failCall(code: ParseCode, message: string): void {
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

  protected decideFailure(final: boolean): boolean {
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

  protected restoreRaw(): void {
    this.release(this.content, this.pendingWs + String(this.raw ?? ''), true);
    this.pendingWs = '';
    this.raw = undefined;
  }

  /** The tentative call was real: reasoning ended where it opened. */
  protected commit(): void {
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
  protected draft(resume: number): void {
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
  protected settleAtEnd(): boolean {
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

  private refuse(name: string): ParseCode | undefined {
    if (name.length === 0) return 'PARSE_BAD_CALL_SYNTAX';
    return this.tools.has(name) ? undefined : 'PARSE_UNKNOWN_TOOL';
  }

  private diagnostic(code: ParseCode, message: string, start: number, severity: Diagnostic['severity'], end = start): Diagnostic {
    return { code, severity, message, span: [start, Math.max(start, end)], family: this.family };
  }
}

function refusalMessage(code: ParseCode, name: string): string {
  return code === 'PARSE_UNKNOWN_TOOL' ? `"${name}" is not a declared tool` : 'the call header names no function';
}

import type { CoreOptions, ParseEvent, ToolIndex } from '../core.js';
import { prefixOpensReasoning, type CompiledGrammar } from './compiled.js';
import type { ArgsCodec, Grammar, Wake } from './grammar.js';
import type { TextBuffer } from './text-buffer.js';
import { parseWork } from './work.js';
import { StreamTrimmer } from './trim.js';

export type Mode = 'content' | 'reasoning' | 'section' | 'section-text' | 'header' | 'args' | 'tail' | 'skip' | 'after' | 'failing' | 'aside' | 'separated';

/**
 * A call (or section) that opened inside open reasoning. It is a real call if reasoning never closes
 * after it (end of output, a stop string or another call follows), and a draft — reasoning text — if
 * prose or the reasoning close follows, or if it does not parse. Until then its events are queued.
 */
export interface Tentative {
  events: ParseEvent[];
  raw: TextBuffer;
  /** Completion offset where the tentative text starts. */
  start: number;
  /** Offset (into raw) just after the latest call/section opener: where prose resumes for a failed draft. */
  resume: number;
}

/**
 * What the machine keeps between steps, its starting state, and the primitives every step uses (consume, release,
 * emit). GrammarMachine is one class written in layers, each file extending the one below it: this state,
 * machine-calls.ts (a call's life), machine-steps.ts (the step loop), machine.ts (the fast lane, push and finish).
 * One object rather than parts that call each other: the per-character and per-push paths read this state with no
 * indirection, and every call site sees one receiver shape. State that only one layer uses is private to it there.
 */
export abstract class MachineState {
  protected buf = '';
  protected pos = 0;
  /** Completion offset of buf[0]. */
  protected base = 0;
  protected mode: Mode = 'content';
  protected out: ParseEvent[] = [];
  protected readonly content = new StreamTrimmer();
  protected readonly reasoning = new StreamTrimmer();
  protected reasoningMayOpen: boolean;
  protected absorbOpener = false;
  /** A reasoning opener was just read: the channel label (Grammar.reasoningLabel) may follow. */
  protected labelPending = false;
  protected tentative: Tentative | undefined;
  protected inSection = false;
  /** The open section held a call (so it is structure, not prose mentioning the opener). */
  protected sectionProven = false;
  protected sectionOpenLength = 0;
  /** A failed call restored its section's opener as text, so the section's close is text too (no text is lost). */
  protected sectionRestored = false;
  /** Raw text of the open section or call, kept to restore it as content if it is not one. */
  protected raw: TextBuffer | undefined;
  /** Nothing but whitespace since the last call ended outside a section. */
  protected justClosedCall = false;
  /** The open call began at its header (Grammar.bareOpen): its close is optional. */
  protected bareCall = false;
  protected codec: ArgsCodec | undefined;
  /** The wake the step loop's last codec 'more' left (argsStep): push parks on it. */
  protected nextWake: Wake | undefined;
  protected readonly grammar: Grammar;
  protected readonly tools: ToolIndex;
  protected readonly family: string;

  constructor(
    protected readonly m: CompiledGrammar,
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

  protected consume(n: number): string {
    parseWork.chars += n;
    const piece = n === this.buf.length && this.pos === 0 ? this.buf : this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    if (this.raw) this.raw.push(piece);
    this.tentative?.raw.push(piece);
    return piece;
  }

  /** Text through a channel's trimmer; `verbatim`: restored raw text, never leading-trimmed. */
  protected release(channel: StreamTrimmer, text: string, verbatim = false): void {
    const released = verbatim ? channel.pushVerbatim(text) : channel.push(text);
    if (released.length === 0) return;
    this.emit({ kind: channel === this.content ? 'content' : 'reasoning', text: released });
    if (channel === this.content) this.justClosedCall = false;
  }

  protected emit(event: ParseEvent): void {
    (this.tentative ? this.tentative.events : this.out).push(event);
  }
}

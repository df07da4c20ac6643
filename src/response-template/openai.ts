import { isPySpace } from '../jinja/values.js';
import type { IdGenerator } from '../parse/ids.js';
import { isPlainObject } from '../util/guards.js';
import { isHighSurrogate, isLowSurrogate } from '../util/utf16.js';
import type { Delta, Diagnostic } from '../types.js';
import { ResponseTemplateError } from './errors.js';
import type { ResponseEvent, ResponseParser } from './index.js';
import { PyRegex } from './regex/index.js';
import { TextLog } from './text-log.js';
import { CALLS_FIELD, callsOf, targetOf, textOf, toOpenAIMessage, type CallShape, type Target } from './openai-message.js';

/** What a field of the template needs to stream as text. */
interface FieldPlan {
  target?: Target;
  /** Chunks are the value's text (a `text` field without transform): streamed as they come, Python-stripped. */
  streams: boolean;
  strip: boolean;
  /** Put between two regions' values: the field's `join`, '' for lists and overwrites. */
  separator: string;
  /** The field's close, to step over it after the region closed (so raw text recovered after a failure starts right). */
  close?: (text: string) => number;
}

/** How long the close at the start of `text` is (0: none there). */
function closeMatcher(spec: Record<string, unknown>): ((text: string) => number) | undefined {
  const literals = typeof spec.close === 'string' ? [spec.close] : Array.isArray(spec.close) ? spec.close.filter((c): c is string => typeof c === 'string') : [];
  if (literals.length > 0) return (text) => Math.max(0, ...literals.filter((l) => text.startsWith(l)).map((l) => l.length));
  if (typeof spec.close_pattern !== 'string') return undefined;
  let regex: PyRegex;
  try {
    // Anchored: only a close right at the region's end counts.
    regex = new PyRegex(`\\A(?:${spec.close_pattern})`);
  } catch {
    return undefined;
  }
  return (text) => {
    try {
      const found = regex.search(text, 0, false);
      return found && !found.partial && found.match.start === 0 ? found.match.end : 0;
    } catch {
      return 0;
    }
  };
}

/** A code point boundary strictly between `lo` and `hi` (near the middle), or undefined when they are one code point apart. */
function splitPoint(text: string, lo: number, hi: number): number | undefined {
  let mid = lo + ((hi - lo) >> 1);
  // Never between the halves of a surrogate pair: a stream is fed whole code points.
  if (mid > lo && isLowSurrogate(text.charCodeAt(mid)) && isHighSurrogate(text.charCodeAt(mid - 1))) mid = mid - 1 > lo ? mid - 1 : mid + 1;
  return mid > lo && mid < hi ? mid : undefined;
}

/** Delimiters are short: looking this far past a region's end is enough to step over its close (and what it eats). */
const CLOSE_WINDOW = 256;

function planFields(template: Record<string, unknown>): Map<string, FieldPlan> {
  const plans = new Map<string, FieldPlan>();
  const fields = isPlainObject(template.fields) ? template.fields : {};
  for (const [name, raw] of Object.entries(fields)) {
    const spec = isPlainObject(raw) ? raw : {};
    const args = isPlainObject(spec.content_args) ? spec.content_args : {};
    const target = targetOf(name);
    plans.set(name, {
      ...(target ? { target } : {}),
      streams: (spec.content ?? 'text') === 'text' && spec.transform === undefined,
      strip: args.strip !== false,
      separator: typeof spec.join === 'string' ? spec.join : '',
    });
    const close = closeMatcher(spec);
    if (close) plans.get(name)!.close = close;
  }
  return plans;
}

interface OpenRegion {
  field: string;
  plan: FieldPlan;
  /** Stripping as text arrives: leading whitespace is dropped until `started`; trailing whitespace waits in `held`. */
  started: boolean;
  held: string;
  /** Whitespace dropped before the region's first text. */
  dropped: string;
  /** Characters of the region's value already streamed (the separator excluded). */
  emitted: number;
  separatorSent: boolean;
  /** Where its last chunk ends in the generation; settled (`accounted`) when the region closes without error. */
  end: number;
}

/**
 * Streams a response-template parser as chatfmt's OpenAI deltas. Text fields stream as their regions grow (leading and
 * trailing whitespace held, as Python's strip would drop it); other values and calls go out when their region closes.
 * `finish` checks the stream against the mapped dict: a missing tail is sent, a difference is a warning.
 * When the template's parser raises (bad JSON in a call, a truncated call), chatfmt's policy applies instead of
 * transformers' exception: what was settled stays, the raw text from the failing region on follows as content, and an
 * error diagnostic says what transformers raised.
 */
export class OpenAIResponseStream {
  private readonly plans: Map<string, FieldPlan>;
  private region: OpenRegion | undefined;
  /** Regions each field has stored, for separators. */
  private readonly stored = new Map<string, number>();
  private readonly sent: Record<Target, string> = { content: '', reasoning: '' };
  private readonly sentCalls: CallShape[] = [];
  private readonly generation = new TextLog();
  /** How far into the generation the deltas account for (end of the last chunk settled). */
  private accounted = 0;
  private failed = false;
  private finished = false;
  private trailing = '';
  private pendingInitial: ResponseEvent[];
  private parser: ResponseParser;

  /** `create`: a fresh parser of the same template and options (replayed after a failure, see `recover`). */
  constructor(
    private readonly create: () => ResponseParser,
    template: Record<string, unknown>,
    private readonly idGenerator: IdGenerator,
    private readonly label: string,
  ) {
    this.plans = planFields(template);
    this.parser = create();
    this.pendingInitial = this.parser.initialEvents;
  }

  push(chunk: string): Delta[] {
    const deltas: Delta[] = [];
    if (this.failed) {
      if (chunk) deltas.push({ content: chunk });
      return deltas;
    }
    this.generation.append(chunk);
    this.flushInitial(deltas);
    let events: ResponseEvent[];
    try {
      events = this.parser.feed(chunk);
    } catch (error) {
      if (!(error instanceof ResponseTemplateError)) throw error;
      this.recover(chunk, deltas);
      return deltas;
    }
    this.apply(events, deltas);
    return deltas;
  }

  /**
   * A feed that raises loses the events it had produced before (a call that closed earlier in the same chunk). So the
   * chunk is replayed on a fresh parser that has seen everything before it, up to the code point that makes it raise:
   * the events up to the failure are kept, and the result does not depend on how the text was chunked. That code point
   * is found by bisection, each step one feed of a prefix: replaying the chunk a code point at a time (as this did)
   * costs what a stream of one-character pushes costs, quadratic in a region held open (an 8 KB malformed call: 8 s
   * for a batch parse whose dict took 10 ms). A parser that raises at a prefix raises at every longer one (what it
   * settled stays settled); were one not to, the replay goes on a code point at a time from the last prefix that fed.
   */
  private recover(chunk: string, deltas: Delta[]): void {
    const before = this.generation.length - chunk.length;
    const head = this.generation.slice(0, before);
    let at = before;
    try {
      const feeds = (end: number): boolean => {
        const trial = this.create();
        trial.feed(head);
        try {
          trial.feed(chunk.slice(0, end));
          return true;
        } catch (error) {
          if (!(error instanceof ResponseTemplateError)) throw error;
          return false;
        }
      };
      let lo = 0;
      let hi = chunk.length;
      for (;;) {
        const mid = splitPoint(chunk, lo, hi);
        if (mid === undefined) break;
        if (feeds(mid)) lo = mid;
        else hi = mid;
      }
      const fresh = this.create();
      fresh.feed(head);
      this.apply(fresh.feed(chunk.slice(0, lo)), deltas);
      at += lo;
      for (const char of chunk.slice(lo)) {
        at += char.length;
        this.apply(fresh.feed(char), deltas);
      }
      this.parser = fresh;
    } catch (error) {
      if (!(error instanceof ResponseTemplateError)) throw error;
      this.fail(error, deltas, at);
    }
  }

  finish(): Delta[] {
    if (this.finished) return [];
    this.finished = true;
    const deltas: Delta[] = [];
    if (this.failed) return deltas;
    this.flushInitial(deltas);
    let result: { message: Record<string, unknown>; events: ResponseEvent[] };
    try {
      result = this.parser.finalize();
    } catch (error) {
      if (!(error instanceof ResponseTemplateError)) throw error;
      this.fail(error, deltas);
      return deltas;
    }
    this.apply(result.events, deltas);
    this.reconcile(result.message, deltas);
    return deltas;
  }

  private flushInitial(deltas: Delta[]): void {
    if (this.pendingInitial.length === 0) return;
    const events = this.pendingInitial;
    this.pendingInitial = [];
    this.apply(events, deltas, true);
  }

  private newRegion(field: string, plan: FieldPlan): OpenRegion {
    return { field, plan, started: false, held: '', dropped: '', emitted: 0, separatorSent: false, end: this.accounted };
  }

  /** `prefix`: the events of the prompt's tail, whose text is not in the generation. */
  private apply(events: ResponseEvent[], deltas: Delta[], prefix = false): void {
    for (const event of events) {
      const plan = this.plans.get(event.field) ?? { streams: false, strip: true, separator: '' };
      if (event.type === 'region_open') {
        this.region = this.newRegion(event.field, plan);
      } else if (event.type === 'region_chunk') {
        const region = this.region ?? (this.region = this.newRegion(event.field, plan));
        if (prefix) region.end = this.accounted;
        else this.align(region, event.text);
        if (plan.target && plan.streams) this.streamText(region, plan.target, event.text, deltas);
      } else {
        this.close(event.field, plan, event.value, deltas);
        this.region = undefined;
      }
    }
  }

  /** Moves the region's end past a chunk: chunks are verbatim slices of the input, in order. */
  private align(region: OpenRegion, text: string): void {
    if (text.length === 0) return;
    // What follows the region's end is only text the executor had held back plus the latest chunk.
    const at = this.generation.slice(region.end).indexOf(text);
    if (at >= 0) region.end += at + text.length;
  }

  /** A chunk of a text region, as the part of Python's strip() of the whole region it settles (linear in the chunk). */
  private streamText(region: OpenRegion, target: Target, chunk: string, deltas: Delta[]): void {
    let piece = chunk;
    if (region.plan.strip) {
      piece = '';
      let from = 0;
      if (!region.started) {
        while (from < chunk.length && isPySpace(chunk.charCodeAt(from))) from++;
        region.dropped += chunk.slice(0, from);
        if (from === chunk.length) return;
        region.started = true;
      }
      let end = chunk.length;
      while (end > from && isPySpace(chunk.charCodeAt(end - 1))) end--;
      if (end > from) {
        piece = region.held + chunk.slice(from, end);
        region.held = chunk.slice(end);
      } else region.held += chunk.slice(from);
    }
    if (piece.length === 0) return;
    region.emitted += piece.length;
    this.sendText(region, target, piece, deltas);
  }

  private sendText(region: OpenRegion, target: Target, piece: string, deltas: Delta[]): void {
    let text = piece;
    if (!region.separatorSent) {
      region.separatorSent = true;
      if ((this.stored.get(region.field) ?? 0) > 0) text = region.plan.separator + text;
    }
    if (text.length === 0) return;
    this.sent[target] += text;
    deltas.push(target === 'content' ? { content: text } : { reasoning_content: text });
  }

  private close(field: string, plan: FieldPlan, value: unknown, deltas: Delta[]): void {
    const region = this.region?.field === field ? this.region : this.newRegion(field, plan);
    if (plan.target) {
      const text = textOf(value);
      if (plan.streams && typeof value === 'string' && region.emitted <= text.length) {
        // The region's value is authoritative; what streamed was its beginning.
        this.sendText(region, plan.target, text.slice(region.emitted), deltas);
      } else this.sendText(region, plan.target, text, deltas);
    } else if (field === CALLS_FIELD) {
      const problems: string[] = [];
      for (const call of callsOf(value, problems)) this.sendCall(call, deltas);
      for (const message of problems) deltas.push({ diagnostics: [this.diagnostic('PARSE_BAD_CALL_SYNTAX', 'warning', message)] });
    }
    this.stored.set(field, (this.stored.get(field) ?? 0) + 1);
    // Whitespace the strip dropped at the end of a content piece goes back in if raw text follows it after a failure.
    this.trailing = plan.target === 'content' && plan.streams && plan.strip ? (region.started ? region.held : region.dropped) : '';
    this.accounted = Math.max(this.accounted, region.end);
    this.skipClose(plan);
  }

  /** After a region closed, its close delimiter (when it is right there) is settled text too. */
  private skipClose(plan: FieldPlan): void {
    if (plan.close) this.accounted += plan.close(this.generation.slice(this.accounted, CLOSE_WINDOW));
  }

  private sendCall(call: CallShape, deltas: Delta[]): void {
    const index = this.sentCalls.length;
    this.sentCalls.push(call);
    const id = call.id ?? this.idGenerator({ index, name: call.name });
    deltas.push({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: call.arguments } }] });
  }

  /** `at`: where the text that made the parser raise ends (the span ends there, whatever the chunking). */
  private fail(error: ResponseTemplateError, deltas: Delta[], at = this.generation.length): void {
    this.failed = true;
    const message = `${error.pythonType}: ${error.message}`;
    const span: [number, number] = [this.accounted, at];
    deltas.push({ diagnostics: [{ ...this.diagnostic('PARSE_RESPONSE_TEMPLATE', 'error', `${message}; the unparsed text is kept as content`), span }] });
    // As chatfmt's families do: the raw text in place, with the whitespace before it (content stays trimmed at its start).
    const raw = (this.sent.content.length > 0 ? this.trailing : '') + this.generation.slice(this.accounted);
    if (raw.length > 0) {
      this.sent.content += raw;
      deltas.push({ content: raw });
    }
  }

  /** The stream against transformers' dict: send what is missing; say so where they cannot agree. */
  private reconcile(dict: Record<string, unknown>, deltas: Delta[]): void {
    const mapped = toOpenAIMessage(dict, () => '');
    const differs: string[] = [];
    for (const target of ['reasoning', 'content'] as const) {
      const want = (target === 'content' ? mapped.content : mapped.reasoning_content) ?? '';
      const have = this.sent[target];
      if (want === have) continue;
      if (want.startsWith(have)) {
        const rest = want.slice(have.length);
        this.sent[target] += rest;
        deltas.push(target === 'content' ? { content: rest } : { reasoning_content: rest });
      } else differs.push(target === 'content' ? 'content' : 'reasoning_content');
    }
    const sameCalls =
      mapped.tool_calls.length === this.sentCalls.length &&
      mapped.tool_calls.every((call, i) => call.function.name === this.sentCalls[i]!.name && call.function.arguments === this.sentCalls[i]!.arguments);
    if (!sameCalls) differs.push('tool_calls');
    if (differs.length > 0) {
      const message = `${differs.join(', ')} differ from transformers' dict: the template stores a later region over an earlier one, and chatfmt keeps both`;
      deltas.push({ diagnostics: [this.diagnostic('PARSE_RESPONSE_TEMPLATE', 'warning', message)] });
    }
  }

  private diagnostic(code: Diagnostic['code'], severity: Diagnostic['severity'], message: string): Diagnostic {
    return { code, severity, message, family: this.label };
  }
}

import { ChatfmtError } from '../errors.js';
import type { Delta, Diagnostic, Tool } from '../types.js';
import { indexTools, type ParseEvent, type ParserCore } from './core.js';
import { parseWork } from './engine/work.js';
import { DeltaCollector, deliverDelta, type DeltaSink } from './sink.js';
import { duplicateCallId, randomCallId, type IdGenerator } from './ids.js';
import { parserFamily } from '../registry/parser-table.js';
import type { ParserFamily } from '../registry/parsers.js';
import {
  createOpenAIResponseParser,
  createResponseStreamParser,
  isResponseTemplateOptions,
  type ResponseStreamParser,
  type ResponseTemplateParseOptions,
} from './response.js';

/** Completions longer than this are refused (INPUT_TOO_LARGE). */
export const MAX_INPUT_CHARS = 64 * 1024 * 1024;

/**
 * Diagnostics listed per completion. A model stuck in a loop can break a call thousands of times; past this many the
 * text still comes through as content, and one PARSE_TOO_MANY_DIAGNOSTICS at the end counts the ones not listed.
 */
export const MAX_DIAGNOSTICS = 1000;

export interface ParseOptions {
  /** Family id or alias (`chatfmt families`), or a parser built for a template (`deriveParser`). */
  family: string | ParserFamily;
  /** Declared tools: when given, a call to an undeclared name is not a call. */
  tools?: readonly Tool[] | null;
  /** The end of the rendered prompt (e.g. `<think>\n`); sets the starting state. Default: the family's. */
  prefix?: string;
  /** `parse` throws ChatfmtError PARSE_STRICT on the first error diagnostic. */
  strict?: boolean;
  /** Mints ids for calls the model wrote none for (default: the family's shape, else `call_` + 24 random characters). */
  idGenerator?: IdGenerator;
  /** Adds `tool_call_ends` deltas where each call closes (the gateway releases held calls there). Default off. */
  reportCallEnds?: boolean;
}

export interface StreamParser {
  /** Feeds the next piece of completion text; returns the deltas it settles (possibly none). */
  push(chunk: string): Delta[];
  /** End of output: releases held-back text and withdraws unfinished calls. */
  finish(): Delta[];
  /**
   * `push`, with what the chunk settles handed to `sink` instead of returned as deltas: streamed text and argument
   * fragments reach it as strings, with no delta objects built for them. A parser is driven through one of the two
   * deliveries or both (in any mix, chunk by chunk): either way the output is the same stream.
   */
  pushTo(chunk: string, sink: DeltaSink): void;
  /** `finish`, delivered to `sink`. */
  finishTo(sink: DeltaSink): void;
}

/** With a response template: OpenAI deltas (`output: 'openai'`) … */
export function createStreamParser(options: ResponseTemplateParseOptions & { output: 'openai' }): StreamParser;
/** … or transformers' events and dict (`output` 'dict', the default). */
export function createStreamParser(options: ResponseTemplateParseOptions & { output?: 'dict' }): ResponseStreamParser;
/**
 * One streaming parser per completion. Text is released as it arrives except a tail that could still
 * begin a marker; a call's first delta carries index, id, type and its complete name, later ones only
 * argument fragments. A call found malformed after it started is withdrawn (`withdrawn_tool_calls`)
 * and its raw text follows as content.
 */
export function createStreamParser(options: ParseOptions): StreamParser;
export function createStreamParser(options: ParseOptions | ResponseTemplateParseOptions): StreamParser | ResponseStreamParser {
  if (isResponseTemplateOptions(options)) {
    if (options.output === 'openai') return new LimitedParser(createOpenAIResponseParser(options));
    return createResponseStreamParser(options);
  }
  if (options.family === undefined || options.family === null) {
    throw new ChatfmtError('INPUT_INVALID', 'parse needs a family (or a parser from deriveParser) or a responseTemplate');
  }
  const family = typeof options.family === 'string' ? parserFamily(options.family) : options.family;
  const core = family.createCore({
    tools: indexTools(options.tools ?? undefined),
    prefix: options.prefix ?? family.defaultPrefix,
    family: family.id,
  });
  return new Driver(core, family.id, options.idGenerator ?? family.idGenerator ?? randomCallId, options.reportCallEnds === true);
}

/** Longest chunk offered to the core's fast lane (ParserCore.extend). */
const FAST_LANE_CHUNK = 256;

/** The input limit and the push-after-finish rule, for parsers that are not the Driver; the sink gets their deltas. */
class LimitedParser implements StreamParser {
  private total = 0;
  private finished = false;

  constructor(private readonly inner: Pick<StreamParser, 'push' | 'finish'>) {}

  pushTo(chunk: string, sink: DeltaSink): void {
    for (const delta of this.push(chunk)) deliverDelta(delta, sink);
  }

  finishTo(sink: DeltaSink): void {
    for (const delta of this.finish()) deliverDelta(delta, sink);
  }

  push(chunk: string): Delta[] {
    if (this.finished) throw new ChatfmtError('INPUT_INVALID', 'push() after finish()');
    this.total += chunk.length;
    if (this.total > MAX_INPUT_CHARS) throw new ChatfmtError('INPUT_TOO_LARGE', `completion longer than ${MAX_INPUT_CHARS} characters`);
    return this.inner.push(chunk);
  }

  finish(): Delta[] {
    if (this.finished) return [];
    this.finished = true;
    return this.inner.finish();
  }
}

class Driver implements StreamParser {
  private nextIndex = 0;
  private current = -1;
  private total = 0;
  private finished = false;

  constructor(
    private readonly core: ParserCore,
    private readonly family: string,
    private readonly idGenerator: IdGenerator,
    private readonly reportCallEnds: boolean,
  ) {}

  push(chunk: string): Delta[] {
    // Most small chunks only extend the current text or argument run: their delta is made here, with no events. A
    // large chunk (a batch slice) nearly always holds structure, and the lane would only scan it twice.
    const run = this.extend(chunk);
    if (run === undefined) return this.toDeltas(this.core.push(chunk));
    if (run.length === 0) return [];
    const kind = this.core.runKind;
    if (kind === 'content') return [{ content: run }];
    if (kind === 'reasoning') return [{ reasoning_content: run }];
    return [{ tool_calls: [{ index: this.current, function: { arguments: run } }] }];
  }

  pushTo(chunk: string, sink: DeltaSink): void {
    const run = this.extend(chunk);
    if (run === undefined) return this.deliver(this.core.push(chunk), sink);
    if (run.length === 0) return;
    const kind = this.core.runKind;
    if (kind === 'content') sink.content(run);
    else if (kind === 'reasoning') sink.reasoning(run);
    else sink.arguments(this.current, run);
  }

  /** The limits, then the core's fast lane: the text the chunk settles, or undefined when it must go to core.push. */
  private extend(chunk: string): string | undefined {
    if (this.finished) throw new ChatfmtError('INPUT_INVALID', 'push() after finish()');
    this.total += chunk.length;
    if (this.total > MAX_INPUT_CHARS) {
      throw new ChatfmtError('INPUT_TOO_LARGE', `completion longer than ${MAX_INPUT_CHARS} characters`);
    }
    const run = chunk.length <= FAST_LANE_CHUNK ? this.core.extend(chunk) : undefined;
    if (run === undefined) parseWork.slowPushes++;
    return run;
  }

  finish(): Delta[] {
    const collector = new DeltaCollector();
    this.finishTo(collector);
    return collector.deltas;
  }

  finishTo(sink: DeltaSink): void {
    if (this.finished) return;
    this.finished = true;
    this.deliver(this.core.finish(), sink);
    if (this.unlisted > 0) {
      const message = `${this.unlisted} more diagnostics are not listed (the first ${MAX_DIAGNOSTICS} are)`;
      sink.delta({ diagnostics: [{ code: 'PARSE_TOO_MANY_DIAGNOSTICS', severity: 'warning', message, family: this.family }] });
    }
  }

  private listed = 0;
  private unlisted = 0;

  /** The diagnostic to list, or undefined once MAX_DIAGNOSTICS are listed (then it is only counted). */
  private listable(diagnostic: Diagnostic): Diagnostic | undefined {
    if (this.listed >= MAX_DIAGNOSTICS) {
      this.unlisted++;
      return undefined;
    }
    this.listed++;
    return this.tag(diagnostic);
  }

  /** Events → OpenAI deltas; consecutive text of one kind, or fragments of one call, merge into one delta. */
  private toDeltas(events: ParseEvent[]): Delta[] {
    // Streaming in small chunks is mostly pushes that settle nothing or one piece of text: keep the
    // general merging loop off that path.
    if (events.length === 0) return [];
    if (events.length === 1) {
      const event = events[0]!;
      if (event.kind === 'content') return [{ content: event.text }];
      if (event.kind === 'reasoning') return [{ reasoning_content: event.text }];
      if (event.kind === 'call-args') return [{ tool_calls: [{ index: this.current, function: { arguments: event.text } }] }];
    }
    const collector = new DeltaCollector();
    this.deliver(events, collector);
    return collector.deltas;
  }

  /** Events → the sink: text as text; calls numbered, their ids minted, diagnostics tagged and counted. */
  private deliver(events: ParseEvent[], sink: DeltaSink): void {
    // An indexed loop, not for-of: a first parse runs this for every event in V8's unoptimised tiers, where for-of
    // drives the iterator protocol (a call and a result object per step).
    for (let e = 0; e < events.length; e++) {
      const event = events[e]!;
      switch (event.kind) {
        case 'content':
          sink.content(event.text);
          break;
        case 'reasoning':
          sink.reasoning(event.text);
          break;
        case 'call-start': {
          const index = (this.current = this.nextIndex++);
          const id = this.callId(event.id, index, event.name, sink);
          sink.delta({ tool_calls: [{ index, id, type: 'function', function: { name: event.name, arguments: '' } }] });
          break;
        }
        case 'call-args':
          sink.arguments(this.current, event.text);
          break;
        case 'call-end':
          if (this.reportCallEnds) sink.delta({ tool_call_ends: [this.current] });
          break;
        case 'call-withdraw': {
          const diagnostic = this.listable(event.diagnostic);
          sink.delta({ withdrawn_tool_calls: [this.current], ...(diagnostic ? { diagnostics: [diagnostic] } : {}) });
          if (event.raw) sink.content(event.raw);
          break;
        }
        case 'diagnostic': {
          const diagnostic = this.listable(event.diagnostic);
          if (diagnostic) sink.delta({ diagnostics: [diagnostic] });
          break;
        }
      }
    }
  }

  /** Ids given to this output's calls: no two may share one (a client pairs each result with its call by id). */
  private readonly ids = new Set<string>();

  /** The model's own id for a call (Kimi-K2 writes them), unless an earlier call took it; else a minted one. */
  private callId(written: string | undefined, index: number, name: string, sink: DeltaSink): string {
    if (written !== undefined && !this.ids.has(written)) {
      this.ids.add(written);
      return written;
    }
    const id = this.idGenerator({ index, name });
    this.ids.add(id);
    if (written !== undefined) {
      const diagnostic = this.listable(duplicateCallId(written, id));
      if (diagnostic) sink.delta({ diagnostics: [diagnostic] });
    }
    return id;
  }

  private tag(diagnostic: Diagnostic): Diagnostic {
    return diagnostic.family === undefined ? { ...diagnostic, family: this.family } : diagnostic;
  }
}

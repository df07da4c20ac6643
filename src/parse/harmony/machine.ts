// The gpt-oss (harmony) parser core: harmony's own ExpectStart → Header → Content machine, run over
// text. Header text is buffered (it is short and capped); body text streams out as it arrives, holding
// back only a tail that may still become a marker. Every decision depends on the text alone, never on
// where the chunks split, so streaming and batch agree.

import type { Diagnostic, ParseCode, Severity } from '../../types.js';
import type { CoreOptions, ParseEvent, ParserCore, RunKind } from '../core.js';
import { isStructureOnly, parseHeader, routeMessage, type Problem, type Route } from './header.js';
import { DOUBLE_ENCODED } from '../engine/codecs/json-args.js';
import { JsonObjectScanner } from '../engine/json-object-scan.js';
import { TextBuffer } from '../engine/text-buffer.js';
import { parseWork } from '../engine/work.js';
import { isWhitespace } from '../engine/trim.js';
import { CALL, CHANNEL, CONSTRAIN, couldBeMarker, END, findMarker, isTerminator, markerAt, MESSAGE, RETURN, START, wholeHeaderEnd, type Marker } from './markers.js';
import { TextSink } from './text-sink.js';

/** The most held text the fast lane reads again in front of a chunk (a marker is shorter; longer holds go to push). */
const LANE_HELD = 64;

/** Longer "headers" are taken for free text (real headers are a few dozen characters). */
export const HEADER_LIMIT = 256;

interface HeaderState {
  kind: 'header';
  /** Completion offset where the message began: its `<|start|>`, else its first header character. */
  start: number;
  /** The message's `<|start|>` is part of the completion (so its raw text includes it). */
  explicitStart: boolean;
  /** The role the prompt opened; undefined when the header text itself begins with the role. */
  role: string | undefined;
  /** Header text that was already in the prompt (never emitted: it is not completion text). */
  lead: string;
  /** Header text from the completion, markers included. */
  text: string;
  /** `undecided`: nothing shows yet whether this is a header or free text written without one. */
  verdict: 'undecided' | 'header';
}

interface TextBody {
  kind: 'text';
  start: number;
  sink: TextSink;
  /** Reported when the message ends (a salvaged header-less message: its span covers the whole message). */
  endProblem?: Problem;
}

interface CallBody {
  kind: 'call';
  start: number;
  scanner: JsonObjectScanner;
  /** The message's completion text so far, for a withdraw. */
  raw: TextBuffer;
}

type State = HeaderState | TextBody | CallBody;

const ARGS_VALUE_START = '["-0123456789tfn';

export function createHarmonyMachine(options: CoreOptions): ParserCore {
  return new HarmonyMachine(options);
}

class HarmonyMachine implements ParserCore {
  private buffer = '';
  /** Completion offset of buffer[0]. */
  private base = 0;
  private events: ParseEvent[] = [];
  private readonly content: TextSink;
  private readonly reasoning: TextSink;
  private state: State;
  private finished = false;

  constructor(private readonly options: CoreOptions) {
    const emit = (event: ParseEvent) => this.emit(event);
    this.content = new TextSink('content', emit);
    this.reasoning = new TextSink('reasoning', emit);
    this.state = this.stateFromPrefix(options.prefix);
  }

  runKind: RunKind = 'content';

  extend(chunk: string): string | undefined {
    if (this.finished) return undefined;
    const state = this.state;
    if (state.kind === 'text') return this.extendText(state.sink, chunk);
    if (state.kind === 'header') return this.extendHeader(state, chunk);
    // A body holds text back only at a possible marker outside its strings: the lane needs nothing held.
    if (state.kind !== 'call' || this.buffer.length > 0 || !state.scanner.extendString(chunk)) return undefined;
    state.raw.push(chunk);
    this.runKind = 'call-args';
    this.base += chunk.length;
    // Counted as push counts what it reads (work.ts), call bodies included.
    parseWork.chars += chunk.length;
    return chunk;
  }

  /**
   * A message's text: every marker starts with `<`, so a chunk without one is text. A short held tail (a possible
   * marker start) is read again in front of the chunk, as push would, and the chunk may end by holding one in turn.
   */
  private extendText(sink: TextSink, chunk: string): string | undefined {
    const held = this.buffer;
    if (held.length > LANE_HELD) return undefined;
    const all = held.length === 0 ? chunk : held + chunk;
    let end = all.length;
    if (held.length > 0 || chunk.includes('<')) {
      const hit = findMarker(all, 0);
      if (hit?.marker !== undefined) return undefined;
      if (hit !== undefined) end = hit.at;
    }
    this.runKind = sink.kind;
    this.buffer = end === all.length ? '' : all.slice(end);
    this.base += end;
    parseWork.chars += all.length;
    return end === 0 ? '' : sink.take(end === all.length ? all : all.slice(0, end));
  }

  /**
   * A message header's words (`assistant`, ` to=functions.…`) between its markers: appended as push appends them, for
   * a header already known to be one and within its limit; a complete marker in the text goes to push.
   */
  private extendHeader(state: HeaderState, chunk: string): string | undefined {
    const held = this.buffer;
    if (state.verdict !== 'header' || held.length > LANE_HELD) return undefined;
    const all = held.length === 0 ? chunk : held + chunk;
    const hit = held.length > 0 || chunk.includes('<') ? findMarker(all, 0) : undefined;
    if (hit?.marker !== undefined) return undefined;
    const end = hit === undefined ? all.length : hit.at;
    if (state.text.length + end > HEADER_LIMIT) return undefined;
    if (end > 0) state.text += end === all.length ? all : all.slice(0, end);
    this.buffer = end === all.length ? '' : all.slice(end);
    this.base += end;
    parseWork.chars += all.length;
    return '';
  }

  push(chunk: string): ParseEvent[] {
    if (this.finished) return [];
    this.buffer += chunk;
    // Text kept across pushes is counted again on every push (see work.ts).
    parseWork.chars += this.buffer.length;
    this.run(false);
    return this.take();
  }

  finish(): ParseEvent[] {
    if (this.finished) return [];
    this.finished = true;
    this.run(true);
    const end = this.base;
    const state = this.state;
    if (state.kind === 'header') this.headerWithoutBody(state, end, true);
    else this.endBody(state, end, end, false, true);
    return this.take();
  }

  // ---- scanning ----

  private run(final: boolean): void {
    const text = this.buffer;
    let pos = 0;
    while (pos < text.length) {
      const state = this.state;
      if (state.kind === 'call') {
        const next = this.scanCall(state, text, pos, final);
        if (next.hold) {
          pos = next.pos;
          break;
        }
        pos = next.pos;
        continue;
      }
      if (state.kind === 'header' && state.verdict === 'header') {
        // A whole header in the buffer, as the marker loop below would read it (its words and <|channel|> /
        // <|constrain|> appended, then <|message|> opens the body), in one step: a cold first parse runs that loop
        // unoptimised, several calls per word and marker of every message.
        const at = wholeHeaderEnd(text, pos, HEADER_LIMIT - state.text.length);
        if (at >= 0) {
          state.text += text.slice(pos, at);
          this.headerMarker(state, MESSAGE, this.base + at);
          pos = at + MESSAGE.length;
          continue;
        }
      }
      const hit = findMarker(text, pos);
      if (!hit || (!hit.marker && final)) {
        this.text(text.slice(pos));
        pos = text.length;
        break;
      }
      if (hit.at > pos) this.text(text.slice(pos, hit.at));
      if (!hit.marker) {
        pos = hit.at;
        break;
      }
      pos = hit.at + hit.marker.length;
      this.marker(hit.marker, this.base + hit.at);
    }
    this.buffer = text.slice(pos);
    this.base += pos;
  }

  /** A call body is scanned as JSON, so markers inside its strings are text (like `</tool_call>` elsewhere). */
  private scanCall(state: CallBody, text: string, pos: number, final: boolean): { pos: number; hold: boolean } {
    const { scanner } = state;
    const wasStarted = scanner.started;
    const wasDone = scanner.done;
    const result = scanner.scan(text, pos, text.length);
    const from = wasStarted ? pos : scanner.startAt >= 0 ? scanner.startAt : result.at;
    const to = wasDone ? from : scanner.endAt >= 0 ? scanner.endAt : result.at;
    // Mid-object (the streaming common case) the argument text and the raw text are the same slice.
    const piece = result.at > pos ? text.slice(pos, result.at) : '';
    if (to > from) this.emit({ kind: 'call-args', text: from === pos && to === result.at ? piece : text.slice(from, to) });
    if (piece !== '') state.raw.push(piece);
    if (result.stop === 'end') return { pos: result.at, hold: false };

    const at = this.base + result.at;
    if (result.stop === 'angle') {
      const marker = markerAt(text, result.at);
      if (marker && marker !== MESSAGE && marker !== CONSTRAIN) {
        this.marker(marker, at);
        return { pos: result.at + marker.length, hold: false };
      }
      if (!marker && !final && couldBeMarker(text, result.at)) return { pos: result.at, hold: true };
    }
    const first = text[result.at]!;
    const notObject = result.stop === 'not-object' && ARGS_VALUE_START.includes(first);
    const notObjectWhy = first === '"' ? DOUBLE_ENCODED : 'tool arguments are not a JSON object';
    this.withdraw(
      state,
      notObject ? 'PARSE_ARGS_NOT_OBJECT' : 'PARSE_BAD_ARGS_JSON',
      notObject ? notObjectWhy : `invalid JSON in tool arguments at ${JSON.stringify(first)}`,
      at + 1,
    );
    // The rest of the message continues the withdrawn raw text as content.
    this.state = { kind: 'text', start: state.start, sink: this.content };
    return { pos: result.at, hold: false };
  }

  private text(text: string): void {
    const state = this.state;
    if (state.kind === 'text') state.sink.write(text);
    else if (state.kind === 'header') this.headerText(state, text);
  }

  private marker(marker: Marker, at: number): void {
    const state = this.state;
    if (state.kind === 'header') return this.headerMarker(state, marker, at);
    if (marker === MESSAGE || marker === CONSTRAIN) {
      // Cannot start anything inside a body: literal text.
      if (state.kind === 'text') state.sink.write(marker);
      return;
    }
    const end = isTerminator(marker) ? at + marker.length : at;
    this.endBody(state, at, end, isTerminator(marker), false);
    this.openAfter(marker, at);
  }

  /** State after a marker that ended a message or a header. */
  private openAfter(marker: Marker, at: number): void {
    if (marker === START) {
      this.state = this.header(at, true, undefined, 'header');
    } else if (marker === CHANNEL) {
      this.problem({ code: 'PARSE_BAD_HEADER', severity: 'warning', message: '<|channel|> inside a message: read as the start of the next message' }, [at, at + marker.length]);
      const next = this.header(at, false, 'assistant', 'header');
      next.text = CHANNEL;
      this.state = next;
    } else {
      this.state = this.header(at + marker.length, false, 'assistant', 'undecided');
    }
  }

  // ---- headers ----

  private header(start: number, explicitStart: boolean, role: string | undefined, verdict: HeaderState['verdict']): HeaderState {
    return { kind: 'header', start, explicitStart, role, lead: '', text: '', verdict };
  }

  private headerText(state: HeaderState, text: string): void {
    // The limit is decided on the header's first HEADER_LIMIT + 1 characters, whatever else the chunk holds: a stream
    // fed one character at a time decides there, and a batch that saw the text after it would read it differently
    // (a body after the channel word only there); the rest goes to whatever the header became.
    const room = HEADER_LIMIT + 1 - state.text.length;
    if (room > 0 && text.length > room) {
      this.headerText(state, text.slice(0, room));
      return this.text(text.slice(room));
    }
    state.text += text;
    if (state.verdict === 'undecided') {
      const verdict = startVerdict(state.text);
      if (verdict === 'text') return this.salvage(state, 'text without a message header');
      if (verdict === 'header') state.verdict = 'header';
    }
    if (state.text.length > HEADER_LIMIT && !this.channelWithoutMessage(state)) this.salvage(state, `message header longer than ${HEADER_LIMIT} characters`);
  }

  /**
   * Harmony's non-strict reading of a header that never reached `<|message|>` (`<|channel|>analysis We should…`):
   * the channel comes from the header and the text after its word is the body, so analysis stays reasoning. Only for
   * a text message (no recipient: a call needs its `<|message|>`); false when that reading does not apply.
   */
  private channelWithoutMessage(state: HeaderState): boolean {
    const text = state.lead + state.text;
    const channelAt = text.indexOf(CHANNEL);
    if (channelAt < 0) return false;
    let wordEnd = channelAt + CHANNEL.length;
    while (wordEnd < text.length && isWhitespace(text.charCodeAt(wordEnd))) wordEnd++;
    while (wordEnd < text.length && !isWhitespace(text.charCodeAt(wordEnd)) && text.charCodeAt(wordEnd) !== 0x3c /* < */) wordEnd++;
    const body = text.slice(Math.max(wordEnd, state.lead.length));
    // Header syntax after the word (` to=…`, `<|constrain|>`) is a header cut short, not a body.
    if (isBlank(body) || markerAt(body, skipBlank(body)) || parseHeader(text, state.role === undefined).recipient !== undefined) return false;
    const header = parseHeader(text.slice(0, wordEnd), state.role === undefined);
    const { route, problems } = routeMessage(header, state.role, this.options.tools);
    if (header.channelWord === undefined || (route.kind !== 'reasoning' && route.kind !== 'content')) return false;
    // The header's own span (the same whatever the chunking): from the message start to the end of the channel word.
    const at = state.start + (state.explicitStart ? START.length : 0) + Math.max(0, wordEnd - state.lead.length);
    for (let k = 0; k < problems.length; k++) this.problem(problems[k]!, [state.start, at]);
    const message = `message header without <|message|>: channel "${header.channelWord}" from the header, the rest read as its body`;
    this.problem({ code: 'PARSE_BAD_HEADER', severity: 'warning', message }, [state.start, at]);
    this.enterBody(route, state.start, '', false);
    (this.state as TextBody).sink.write(body);
    return true;
  }

  private headerMarker(state: HeaderState, marker: Marker, at: number): void {
    if (marker === MESSAGE) return this.openBody(state, at + marker.length);
    if (marker === START || isTerminator(marker)) {
      this.headerWithoutBody(state, at, false);
      this.openAfter(marker, at);
      return;
    }
    // <|channel|> or <|constrain|>
    if (state.verdict === 'undecided' && !isBlank(state.text)) {
      this.salvage(state, 'text without a message header');
      return this.marker(marker, at);
    }
    state.verdict = 'header';
    state.text += marker;
    if (state.text.length > HEADER_LIMIT) this.salvage(state, `message header longer than ${HEADER_LIMIT} characters`);
  }

  /** The header ended (next message, terminator, end of output) before any `<|message|>`. */
  private headerWithoutBody(state: HeaderState, at: number, atEnd: boolean): void {
    if (isBlank(state.text)) return;
    if (state.verdict === 'header') {
      if (this.channelWithoutMessage(state)) return this.endBody(this.state as TextBody, at, at, false, atEnd);
      const header = parseHeader(state.lead + state.text, state.role === undefined);
      if (isStructureOnly(header, state.role)) {
        const message = atEnd ? 'output ended inside a message header' : 'message header without <|message|>; skipped';
        this.problem({ code: 'PARSE_BAD_HEADER', severity: 'warning', message }, [state.start, at]);
        return;
      }
    }
    this.salvage(state, 'message without <|message|>; its text is kept as content');
    this.endBody(this.state as TextBody, at, at, false, atEnd);
  }

  /** Harmony non-strict: text that never became a header is the body of a channel-less message. */
  private salvage(state: HeaderState, why: string): void {
    const body: TextBody = {
      kind: 'text',
      start: state.start,
      sink: this.content,
      endProblem: { code: 'PARSE_BAD_HEADER', severity: 'error', message: why },
    };
    this.state = body;
    this.content.open(false, true);
    this.content.write((state.explicitStart ? START : '') + state.text);
  }

  private openBody(state: HeaderState, headerEnd: number): void {
    const header = parseHeader(state.lead + state.text, state.role === undefined);
    const { route, problems } = routeMessage(header, state.role, this.options.tools);
    for (let k = 0; k < problems.length; k++) this.problem(problems[k]!, [state.start, headerEnd]);
    const raw = (state.explicitStart ? START : '') + state.text + MESSAGE;
    this.enterBody(route, state.start, raw, false);
  }

  private enterBody(route: Route, start: number, rawHeader: string, midText: boolean): void {
    if (route.kind === 'call') {
      this.emit({ kind: 'call-start', name: route.name, start });
      this.state = { kind: 'call', start, scanner: new JsonObjectScanner(), raw: TextBuffer.of(rawHeader) };
      return;
    }
    const sink = route.kind === 'reasoning' ? this.reasoning : this.content;
    this.state = { kind: 'text', start, sink };
    sink.open(midText, route.kind === 'raw');
    if (route.kind === 'raw') sink.write(rawHeader);
  }

  // ---- bodies ----

  /** `at`: where the body text ends; `end`: after its terminator, if any. */
  private endBody(state: TextBody | CallBody, at: number, end: number, terminated: boolean, atEnd: boolean): void {
    if (state.kind === 'text') {
      state.sink.close();
      if (state.endProblem) this.problem(state.endProblem, [state.start, at]);
      if (atEnd && state.sink === this.reasoning) {
        this.problem({ code: 'PARSE_UNCLOSED_REASONING', severity: 'warning', message: 'output ended inside an analysis message' }, [state.start, at]);
      }
      return;
    }
    const { scanner } = state;
    if (scanner.done) {
      this.emit({ kind: 'call-end', end });
    } else if (!scanner.started && terminated) {
      // `<|message|><|call|>`: a call without arguments.
      this.emit({ kind: 'call-args', text: '{}' });
      this.emit({ kind: 'call-end', end });
    } else {
      if (atEnd) this.withdraw(state, 'PARSE_TRUNCATED_CALL', 'output ended inside tool arguments', at);
      else this.withdraw(state, 'PARSE_BAD_ARGS_JSON', 'tool arguments end before their JSON object is complete', at);
      this.content.close();
    }
  }

  private withdraw(state: CallBody, code: ParseCode, message: string, spanEnd: number): void {
    // The raw text takes the place of the call in content, trimmed like any message; its markup sets it apart.
    this.content.open(false, true);
    const raw = this.content.take(state.raw.toString());
    this.emit({ kind: 'call-withdraw', raw, diagnostic: this.diagnostic(code, 'error', message, [state.start, spanEnd]) });
  }

  // ---- prefix ----

  /**
   * The prompt normally ends with `<|start|>assistant`: the completion starts inside the header. A
   * prompt that ends after `<|message|>` starts inside that message; after a terminator, between messages.
   */
  private stateFromPrefix(prefix: string): State {
    const fallback = this.header(0, false, 'assistant', 'undecided');
    if (!prefix) return fallback;
    const startAt = prefix.lastIndexOf(START);
    const terminatorAt = Math.max(prefix.lastIndexOf(END), prefix.lastIndexOf(RETURN), prefix.lastIndexOf(CALL));
    if (terminatorAt > startAt) return fallback;
    // Without `<|start|>` the prefix can still be the tail of an assistant header (`<|channel|>analysis<|message|>`).
    const roleInTail = startAt >= 0;
    const tail = roleInTail ? prefix.slice(startAt + START.length) : prefix;
    const messageAt = tail.indexOf(MESSAGE);
    if (messageAt < 0) {
      const role = roleInTail ? /^[A-Za-z0-9_.:-]+/.exec(tail)?.[0] : 'assistant';
      const lead = tail.slice(roleInTail ? (role?.length ?? 0) : 0);
      if (!roleInTail && startVerdict(lead) !== 'header') return fallback;
      const state = this.header(0, false, role, role !== undefined && isBlank(lead) ? 'undecided' : 'header');
      state.lead = lead;
      return state;
    }
    const header = parseHeader(tail.slice(0, messageAt), roleInTail);
    const { route, problems } = routeMessage(header, roleInTail ? undefined : 'assistant', this.options.tools);
    for (const problem of problems) this.problem(problem, [0, 0]);
    const bodySoFar = tail.slice(messageAt + MESSAGE.length);
    if (route.kind !== 'call') {
      this.enterBody(route, 0, '', !isBlank(bodySoFar));
      return this.state;
    }
    // Arguments begun in the prompt are part of the call: replay them so the fragments stay valid JSON.
    const scanner = new JsonObjectScanner();
    const probe = scanner.scan(bodySoFar, 0, bodySoFar.length);
    if (probe.stop !== 'end') {
      this.problem({ code: 'PARSE_BAD_ARGS_JSON', severity: 'error', message: 'the prompt ends inside invalid tool arguments' }, [0, 0]);
      this.enterBody({ kind: 'content' }, 0, '', true);
      return this.state;
    }
    this.emit({ kind: 'call-start', name: route.name, start: 0 });
    const started = bodySoFar.slice(Math.max(0, scanner.startAt));
    if (scanner.started && started !== '') this.emit({ kind: 'call-args', text: scanner.done ? started.slice(0, scanner.endAt - scanner.startAt) : started });
    return { kind: 'call', start: 0, scanner, raw: new TextBuffer() };
  }

  // ---- output ----

  private emit(event: ParseEvent): void {
    // Adjacent text of one kind merges here so the driver sees one event per push in the common case.
    const events = this.events;
    const last = events.length > 0 ? events[events.length - 1]! : undefined;
    if (last !== undefined && last.kind === event.kind && hasText(last) && hasText(event)) {
      last.text += event.text;
      return;
    }
    events.push(event);
  }

  private problem(problem: Problem, span: [number, number]): void {
    this.emit({ kind: 'diagnostic', diagnostic: this.diagnostic(problem.code, problem.severity, problem.message, span) });
  }

  private diagnostic(code: ParseCode, severity: Severity, message: string, span: [number, number]): Diagnostic {
    return { code, severity, message, span, family: this.options.family };
  }

  private take(): ParseEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}

function hasText(event: ParseEvent): event is Extract<ParseEvent, { text: string }> {
  return event.kind === 'content' || event.kind === 'reasoning' || event.kind === 'call-args';
}

function skipBlank(text: string): number {
  let i = 0;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * Where the completion may start a header (after the prompt's `<|start|>assistant` or after a
 * terminator), a header begins with a marker or ` to=`. Anything else is text written without one.
 */
function startVerdict(text: string): 'undecided' | 'header' | 'text' {
  let i = 0;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  if (i === text.length) return 'undecided';
  if (markerAt(text, i)) return 'header';
  const rest = text.length - i;
  if (rest >= 3) return text.startsWith('to=', i) ? 'header' : 'text';
  return 'to='.startsWith(text.slice(i)) ? 'undecided' : 'text';
}

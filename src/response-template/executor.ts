import { CompiledTemplate, compileResponseTemplate, type CompiledResponseTemplate, type Delimiter, type FieldSpec } from './compile.js';
import { castToolCalls, toolProperties, type ToolProperties } from './coerce.js';
import { isDirty, runContentParser, type ParseEnv } from './content.js';
import { RegionError, ResponseTemplateError, type ResponseTemplatePhase } from './errors.js';
import { setKey } from './pyjson.js';
import { cachedTemplate } from './template-cache.js';
import { isDict, pyRepr, pyTypeName } from './python.js';
import { literalState, MAX_MEMO_BITS, RegexBudgetError, type LiteralState, type RegexMatch, type RegexStats, type SearchResult } from './regex/index.js';
import { applyTransform } from './transform.js';

export type ResponseEvent =
  | { type: 'region_open'; field: string }
  | { type: 'region_chunk'; field: string; text: string; dirty: boolean }
  | { type: 'region_close'; field: string; value: unknown };

export interface ResponseParserOptions {
  /** transformers' required keyword: a string ('' = opt out); null/undefined → ResponseTemplateError ValueError. */
  prefix: string | null | undefined;
  /** OpenAI tool dicts ({type:'function', function:{name, parameters}}) or bare {name, parameters}. */
  tools?: readonly unknown[] | null;
  /**
   * chatfmt's, not transformers': before the end of the stream, a delimiter match that looked at the end of the text
   * (RegexMatch.endDependent) waits for more, so a stream settles as one feed of the whole text does. transformers
   * commits it: a close like `…|$` then fires before every chunk's final newline, and each line after it becomes a
   * new region that overwrites the last.
   */
  holdEndDependent?: boolean;
}

export interface ResponseParser {
  readonly initialEvents: ResponseEvent[];
  feed(text: string): ResponseEvent[];
  finalize(): { message: Record<string, unknown>; events: ResponseEvent[] };
  /** Regex matcher steps spent so far (bounded by template size × text length; exposed to show it stays so). */
  readonly stats: Readonly<RegexStats>;
}

/** Characters kept before `pos` when trimming: more than the widest lookbehind (255 code points) needs. */
const TRIM_KEEP = 1024;
/** Trim once this much consumed text has piled up, so copying stays proportional to the text fed. */
const TRIM_STEP = 4096;

/** Held partial matches shorter than this are retried on every chunk (as transformers does; see grownEnough). */
const HELD_RETRY_FROM = 256;

interface Watch { field: FieldSpec; isOpen: boolean; delim: Delimiter }
/**
 * A search of the buffer at `length`, and what it held there: a partial match, or a complete one that more text could
 * still change (see holds), as a pending result from its start.
 */
interface CachedSearch { length: number; final: boolean; from: number; result: SearchResult; held: { partial: true; start: number } | null }
interface Candidate extends Watch { match: RegexMatch }

/** transformers' ResponseParser: one pass over prefix + generation, regions opened and closed by delimiters (§4). */
class Executor implements ResponseParser {
  readonly initialEvents: ResponseEvent[];
  readonly stats: RegexStats = { steps: 0, memoPeak: 0 };
  private buffer: string;
  private pos = 0;
  private current: FieldSpec | null;
  private opened = false;
  private body = '';
  private captures: Record<string, unknown> = {};
  private readonly output: Record<string, unknown>;
  private readonly tools: ToolProperties | null;
  private readonly holdEndDependent: boolean;
  private readonly env: ParseEnv;
  private done = false;
  /** Per delimiter, what earlier searches of the growing buffer proved (see SearchOptions.resume/literalScan). */
  private readonly hints = new Map<Delimiter, { from: number; to: number }>();
  /** Where each delimiter literal was looked for, shared by the delimiters (they often share literals). */
  private readonly literals: LiteralState = literalState();
  /** The watch lists, built once: the opens plus the implicit close, and each explicit field's close. */
  private openList: Watch[] | null = null;
  private readonly closeLists = new Map<FieldSpec, Watch[]>();
  private readonly searches = new Map<Delimiter, CachedSearch>();
  /** Text was dropped from the buffer's start (see trim): `^` can no longer match at index 0. */
  private trimmed = false;
  /** A high surrogate that ended the last chunk: held until its pair arrives, so no delimiter sees half a character. */
  private pendingHigh = '';

  constructor(private readonly tpl: CompiledTemplate, options: ResponseParserOptions) {
    const argError = (type: 'ValueError' | 'TypeError', message: string): never => {
      throw new ResponseTemplateError('RESPONSE_TEMPLATE_ARGUMENT', type, 'load', message);
    };
    const prefix = options?.prefix;
    if (prefix === null || prefix === undefined) argError('ValueError', "ResponseParser/parse_response requires `prefix` (the chat prompt sent before generation, which may pre-write part of the message); pass prefix '' to opt out explicitly");
    if (typeof prefix !== 'string') argError('TypeError', `prefix must be a str, not ${pyTypeName(prefix)}`);
    const tools = options.tools;
    if (tools !== undefined && tools !== null && !Array.isArray(tools)) argError('TypeError', `tools must be a list of tool dicts, not ${pyTypeName(tools)}`);
    const props = toolProperties(tools ?? []);
    this.tools = props.size > 0 ? props : null;
    this.holdEndDependent = options.holdEndDependent === true;
    this.env = { stats: this.stats, patterns: tpl.patterns };
    this.output = deepCopy(tpl.defaults) as Record<string, unknown>;
    this.current = tpl.implicit;
    this.buffer = this.guard('load', () => afterLastAnchor(tpl, prefix as string, this.stats));
    this.initialEvents = this.buffer === '' ? [] : this.guard('load', () => this.run(false, 'load'));
  }

  feed(text: string): ResponseEvent[] {
    if (this.done) throw new ResponseTemplateError('RESPONSE_TEMPLATE_STATE', 'RuntimeError', 'feed', 'ResponseParser already finalized');
    if (typeof text !== 'string') throw new ResponseTemplateError('RESPONSE_TEMPLATE_ARGUMENT', 'TypeError', 'feed', `feed() takes a str, not ${pyTypeName(text)}`);
    let whole = this.pendingHigh + text;
    const last = whole.charCodeAt(whole.length - 1);
    this.pendingHigh = last >= 0xd800 && last <= 0xdbff ? whole.slice(-1) : '';
    if (this.pendingHigh) whole = whole.slice(0, -1);
    this.buffer += whole;
    const events = this.guard('feed', () => this.run(false, 'feed'));
    this.trim();
    return events;
  }

  finalize(): { message: Record<string, unknown>; events: ResponseEvent[] } {
    if (this.done) throw new ResponseTemplateError('RESPONSE_TEMPLATE_STATE', 'RuntimeError', 'finalize', 'ResponseParser already finalized');
    this.buffer += this.pendingHigh;
    this.pendingHigh = '';
    const events = this.guard('finalize', () => this.run(true, 'finalize'));
    const missing = this.tpl.fields.filter((f) => !f.optional && !Object.hasOwn(this.output, f.name)).map((f) => pyRepr(f.name));
    if (missing.length > 0) {
      throw new ResponseTemplateError('RESPONSE_TEMPLATE_VALUE', 'ValueError', 'finalize', `Required response_template fields missing from parsed output: [${missing.join(', ')}]`);
    }
    for (const key of Object.keys(this.output)) {
      if (!Object.hasOwn(this.tpl.defaults, key) && isEmpty(this.output[key])) delete this.output[key];
    }
    this.done = true;
    return { message: this.output, events };
  }

  /**
   * Drops consumed text from the buffer's start, keeping enough before `pos` for any lookbehind or \b. Without it every
   * chunk would re-flatten (copy) the whole output so far: quadratic time, and chunk strings that pin old copies.
   */
  private trim(): void {
    if (this.pos < TRIM_KEEP + TRIM_STEP) return;
    let cut = this.pos - TRIM_KEEP;
    const c = this.buffer.charCodeAt(cut);
    if (c >= 0xdc00 && c <= 0xdfff) cut--;
    this.buffer = this.buffer.slice(cut);
    this.pos -= cut;
    this.trimmed = true;
    this.searches.clear();
    this.hints.clear();
    this.literals.clear();
  }

  /** Maps internal failures to ResponseTemplateError with the phase of the call that raised. */
  private guard<T>(phase: ResponseTemplatePhase, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof RegionError) {
        throw new ResponseTemplateError(e.limit ? 'RESPONSE_TEMPLATE_LIMIT' : 'RESPONSE_TEMPLATE_VALUE', e.pythonType, phase, e.message);
      }
      if (e instanceof RegexBudgetError) {
        const what = e.resource === 'memo' ? `its visited-state memo outgrew ${MAX_MEMO_BITS >>> 23} MiB` : 'it exceeded the regex step budget';
        throw new ResponseTemplateError('RESPONSE_TEMPLATE_LIMIT', 'RuntimeError', phase, `response template: a pattern is pathological on this text (${what})`);
      }
      throw e;
    }
  }

  /** Delimiters looked for now: inside an explicit region only its close, otherwise every open plus the implicit close. */
  private watchList(): readonly Watch[] {
    const cur = this.current;
    if (cur && cur.open) {
      let list = this.closeLists.get(cur);
      if (!list) this.closeLists.set(cur, list = cur.close ? [{ field: cur, isOpen: false, delim: cur.close }] : []);
      return list;
    }
    if (!this.openList) {
      const list: Watch[] = this.tpl.fields.filter((f) => f.open).map((f) => ({ field: f, isOpen: true, delim: f.open! }));
      const implicit = this.tpl.implicit;
      if (implicit?.close) list.push({ field: implicit, isOpen: false, delim: implicit.close });
      this.openList = list;
    }
    return this.openList;
  }

  private run(final: boolean, phase: ResponseTemplatePhase): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    let stalled = 0;
    for (;;) {
      const end = this.buffer.length;
      let hold = end;
      const found: Candidate[] = [];
      for (const w of this.watchList()) {
        const r = this.search(w.delim, final);
        if (!r) continue;
        if (r.partial) { hold = Math.min(hold, r.start); continue; }
        const m = r.match;
        if (!final && this.holds(m, w.delim)) {
          hold = Math.min(hold, m.start);
          continue;
        }
        found.push({ field: w.field, isOpen: w.isOpen, delim: w.delim, match: m });
      }
      let best: Candidate | undefined;
      for (const c of found) if (c.match.start < hold && (!best || compareCandidates(c, best) < 0)) best = c;
      if (!best) {
        if (final) {
          this.accumulate(this.buffer.slice(this.pos), events);
          this.pos = end;
          this.closeRegion(events);
        } else {
          this.accumulate(this.buffer.slice(this.pos, hold), events);
          this.pos = hold;
        }
        return events;
      }
      const before = this.pos;
      this.accumulate(this.buffer.slice(this.pos, best.match.start), events);
      this.pos = best.match.end;
      if (best.isOpen) {
        this.closeRegion(events);
        this.openRegion(best, events);
      } else {
        // Close captures are not in the transform's scope (transformers keeps only the open's).
        const wasOpened = this.opened;
        this.closeRegion(events);
        if (best.match.start === best.match.end && !wasOpened) return events;
      }
      stalled = this.pos === before ? stalled + 1 : 0;
      if (stalled > 2 * this.tpl.fields.length + 2) {
        throw new ResponseTemplateError('RESPONSE_TEMPLATE_LIMIT', 'RuntimeError', phase, 'response template: delimiters keep matching the empty string without advancing');
      }
    }
  }

  /**
   * `regex.search(buffer, pos, partial=not final)`, reusing the last result of the same delimiter while the buffer is
   * unchanged and `pos` has not passed the result's start: whether an attempt at a position matches does not depend
   * on where the search began, so the answer is the same. Without this every commit would rescan the rest of the
   * buffer for each delimiter that does not occur (transformers does, which makes long outputs quadratic).
   */
  private search(delim: Delimiter, final: boolean): SearchResult {
    const cached = this.searches.get(delim);
    if (cached && cached.final === final && this.pos >= cached.from) {
      const r = cached.result;
      if (cached.length === this.buffer.length) {
        if (!r || this.pos <= (r.partial ? r.start : r.match.start)) return r;
      } else if (!final && cached.held && this.pos <= cached.held.start && !delim.re.resumable && !grownEnough(cached.length - cached.held.start, this.buffer.length - cached.length)) {
        // A complete match held at the end is retried as sparingly as a partial one: `\s*$` over a run of spaces
        // streamed in small chunks re-read the whole run on every chunk (20,000 spaces in 4-character chunks: 11 s).
        return cached.held;
      }
    }
    let hint = this.hints.get(delim);
    if (!hint) this.hints.set(delim, hint = { from: -1, to: -1 });
    const where = delim.re.lookaheadLiteral !== null ? { literalScan: hint } : { resume: hint, literals: this.literals };
    const result = delim.re.search(this.buffer, this.pos, !final, { stats: this.stats, trimmed: this.trimmed, ...where });
    const held = result === null ? null : result.partial ? result : !final && this.holds(result.match, delim) ? { partial: true as const, start: result.match.start } : null;
    this.searches.set(delim, { length: this.buffer.length, final, from: this.pos, result, held });
    return result;
  }

  /**
   * Before the end of the stream, a complete match that more text could still change waits (is pending): one that ends
   * at the buffer's end and could grow there, and, with holdEndDependent, one that looked at the end.
   */
  private holds(m: RegexMatch, delim: Delimiter): boolean {
    return (m.end === this.buffer.length && (m.start === m.end || delim.canGrow)) || (this.holdEndDependent && m.endDependent === true);
  }

  private accumulate(text: string, events: ResponseEvent[]): void {
    const f = this.current;
    if (!f || text === '') return;
    if (!this.opened) {
      this.opened = true;
      events.push({ type: 'region_open', field: f.name });
    }
    const own = detach(text);
    this.body += own;
    events.push({ type: 'region_chunk', field: f.name, text: own, dirty: isDirty(f.content) });
  }

  private openRegion(c: Candidate, events: ResponseEvent[]): void {
    this.current = c.field;
    this.opened = true;
    this.body = '';
    this.captures = namedGroups(c);
    events.push({ type: 'region_open', field: c.field.name });
  }

  /** Parses, transforms, casts and stores the open region's value; the state is untouched if that fails. */
  private closeRegion(events: ResponseEvent[]): void {
    const f = this.current;
    if (f && this.opened) {
      const value = this.value(f);
      this.store(f, value);
      events.push({ type: 'region_close', field: f.name, value });
    }
    this.current = this.tpl.implicit;
    this.opened = false;
    this.body = '';
    this.captures = {};
  }

  private value(f: FieldSpec): unknown {
    let value = runContentParser(f.content, this.body, f.contentArgs, this.env);
    if (f.transform !== undefined) {
      if (f.transformEach) {
        if (!Array.isArray(value)) throw new RegionError('ValueError', `Field ${pyRepr(f.name)}: transform_each requires the parsed content to be a list, got ${pyTypeName(value)}.`);
        value = value.map((item) => {
          if (!isDict(item)) throw new RegionError('ValueError', `Field ${pyRepr(f.name)}: transform_each requires each list element to be a dict, got ${pyTypeName(item)}.`);
          return applyTransform(f.transform, { ...this.captures, ...item });
        });
      } else value = applyTransform(f.transform, { ...this.captures, content: value });
    }
    if (this.tools) value = castToolCalls(value, this.tools);
    if (f.join !== undefined && typeof value !== 'string') {
      throw new RegionError('ValueError', `Field ${pyRepr(f.name)}: 'join' requires each match to parse to a string, got ${pyTypeName(value)}.`);
    }
    return value;
  }

  private store(f: FieldSpec, value: unknown): void {
    const previous = Object.hasOwn(this.output, f.name) ? this.output[f.name] : undefined;
    if (f.join !== undefined) {
      if (previous !== null && previous !== undefined && typeof previous !== 'string') {
        throw new RegionError('TypeError', `Field ${pyRepr(f.name)}: cannot join onto a ${pyTypeName(previous)} already in the output`);
      }
      setKey(this.output, f.name, previous === null || previous === undefined ? value : `${previous}${f.join}${value as string}`);
    } else if (f.repeats) {
      if (Array.isArray(previous)) previous.push(value);
      else setKey(this.output, f.name, [value]);
    } else setKey(this.output, f.name, value);
  }
}

/**
 * Whether a partial match held over `held` characters is worth re-trying after `grown` more arrived. A matcher
 * attempt cannot resume where it ran into the end, so each retry re-reads the held text: retried on every chunk, a
 * call opener whose pattern runs on without a close (`<｜tool▁calls｜>[^<]*…` over 16 KB of JSON) costs the square of
 * its length, 6.6 s in 4-character chunks. Past HELD_RETRY_FROM characters a retry waits until the text has grown by
 * an eighth of what is held, which bounds the rereading to a constant times the text. Nothing is released early: text
 * from the held start stays held, and attempts before it failed without reaching the end, so they fail on any longer
 * text. The answers are those of the same text fed in fewer chunks; only how the released text is chunked differs.
 */
function grownEnough(held: number, grown: number): boolean {
  return held < HELD_RETRY_FROM || grown * 8 >= held;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return a.match.start - b.match.start
    || (b.match.end - b.match.start) - (a.match.end - a.match.start)
    || (a.isOpen ? 0 : 1) - (b.isOpen ? 0 : 1)
    || (a.field.name < b.field.name ? -1 : a.field.name > b.field.name ? 1 : 0);
}

/** Named groups that took part in the match (a capture of '' counts; a group that did not participate does not). */
function namedGroups(c: Candidate): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, index] of c.delim.re.names) {
    const text = c.match.groups[index];
    if (text !== undefined) setKey(out, name, text);
  }
  return out;
}

/** The prefix after the last start-anchor match; the whole prefix when the anchor never occurs. */
function afterLastAnchor(tpl: CompiledTemplate, prefix: string, stats: RegexStats): string {
  if (prefix === '') return '';
  const matches = tpl.anchor.finditer(prefix, stats);
  const last = matches[matches.length - 1];
  return last ? prefix.slice(last.end) : prefix;
}

/**
 * A copy of a buffer slice that does not keep the buffer alive (V8 slices of 13+ characters point into their
 * parent string; a long stream's chunk texts would otherwise pin every buffer copy they were cut from).
 */
function detach(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isDict(value) && Object.keys(value).length === 0;
}

function deepCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (isDict(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setKey(out, k, deepCopy(v));
    return out;
  }
  return value;
}

export function createResponseParser(template: CompiledResponseTemplate | unknown, options: ResponseParserOptions): ResponseParser {
  const compiled = template instanceof CompiledTemplate ? template
    : isDict(template) ? cachedTemplate(template) : compileResponseTemplate(template) as CompiledTemplate;
  return new Executor(compiled, options);
}

/** transformers' `parse_response(text, template, prefix=…, tools=…)`: create, feed the whole text, finalize. */
export function parseResponse(text: string, template: CompiledResponseTemplate | unknown, options: ResponseParserOptions): Record<string, unknown> {
  const parser = createResponseParser(template, options);
  parser.feed(text);
  return parser.finalize().message;
}

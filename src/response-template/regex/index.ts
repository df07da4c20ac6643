// Python `regex`-module patterns (what transformers compiles response templates with), run by chatfmt's own matcher.
// Why not JS RegExp for complete matches plus a separate partial matcher: transformers asks one question per
// delimiter, `search(buffer, pos, partial=True)`, whose answer (complete match anywhere, else the leftmost attempt
// that ran into the end) depends on the whole backtracking order; answering both halves with one matcher keeps them
// consistent by construction. The dialect differences (Unicode \w\s\d\b, `$` before a final newline, `{,n}`,
// (?P<name>), code-point indexing) then live in one parser, and model output cannot make a search backtrack
// catastrophically (vm.ts). Checked against regex 2026.5.9 on every published template pattern.
import { firstTest, lookaheadLiteral, widthOf, type CpTest } from './ast.js';
import { parsePattern } from './parse.js';
import { LiteralScanner, leadingLiterals, literalAlternatives, literalState, nextOccurrence, type LiteralState } from './prefilter.js';

export { literalState, type LiteralState } from './prefilter.js';
import { compileProgram, type Program } from './program.js';
import { cpAt, run, Visited, type Attempt, type LookResult, type SearchContext } from './vm.js';

export { RegexSyntaxError } from './parse.js';
export { MAX_MEMO_BITS, RegexBudgetError } from './memo.js';

export interface RegexMatch {
  start: number;
  end: number;
  /** Group texts by number (index 0 = whole match); undefined for groups that did not participate. */
  groups: Array<string | undefined>;
  /**
   * The match looked at the end of the input (an end assertion there, or a read that ran into it), so appended text
   * could undo it: Python `$` matches before a final newline that more text would make not final.
   */
  endDependent?: true;
}

export type SearchResult = { partial: false; match: RegexMatch } | { partial: true; start: number } | null;

/** Matcher work across searches (exposed so callers and tests can see that work and memory stay bounded). */
export interface RegexStats {
  steps: number;
  /** The most visited-state memo bits any one search held at once. */
  memoPeak: number;
}

export interface SearchOptions {
  stats?: RegexStats;
  /** An empty match starting here is refused (finditer after an empty match). */
  notEmptyAt?: number;
  /** The input is the tail of a longer text whose start was dropped: `^`/`\A` cannot match at its index 0. */
  trimmed?: boolean;
  /**
   * For `lookaheadLiteral` patterns, kept by the caller across searches of one growing text: the literal starts
   * nowhere in [from, to), so a later search resumes at `to` (text is only ever appended).
   */
  literalScan?: { from: number; to: number };
  /**
   * Kept by the caller across searches of one growing text: attempts at starts in [from, to) failed without looking
   * at the end, so they fail on any longer text too and a later search resumes at `to`. Without it a delimiter held
   * at an early position would make every other delimiter rescan the held text on every chunk.
   */
  resume?: { from: number; to: number };
  /** Kept by the caller across searches of one growing text: where the prefilter's literals were looked for. */
  literals?: LiteralState;
}

/** Steps allowed per search: generous for memoised patterns, whose work is bounded by program × text anyway. */
const BUDGET_BASE = 200_000;
const BUDGET_PER_STATE = 32;
/**
 * Backreference patterns have no memo, so only the budget stops them; it grows with the text but not with the
 * program, so a large pattern fails as early as a small one (legitimate tag patterns spend a few steps a character).
 */
const BACKREF_BUDGET_PER_CHAR = 16;
/** Compiled patterns kept by source, like the `regex` module's own cache: templates reuse the same delimiters. */
const CACHE_SIZE = 256;
const cache = new Map<string, PyRegex>();

/** A pattern compiled with the Python `regex` module's semantics (DOTALL, no MULTILINE). */
export class PyRegex {
  readonly groupCount: number;
  readonly names: ReadonlyMap<string, number>;
  /** The pattern can match the empty string somewhere (a zero-width delimiter). */
  readonly canBeEmpty: boolean;
  private readonly program: Program;
  private readonly slotCount: number;
  private readonly first: CpTest | null;
  /** Lazily filled verdicts of `first` for BMP code points: 0 unknown, 1 can start a match, 2 cannot. */
  private firstTable: Uint8Array | null = null;
  private readonly literals: string[] | null;
  /**
   * Per-search working memory, reused: a search never runs inside another search of the same pattern (lookarounds
   * are programs of their own), and small inputs would otherwise spend their time allocating it.
   */
  private readonly scratch: { caps: Int32Array; stack: number[]; lookMemo: Map<number, LookResult>; lookVisited: Map<number, Visited>; literals: LiteralState };
  private readonly longestLiteral: number;
  /** Set when the pattern is `(?=[\s\S]*?L)`: searched as "does L occur from here" (see ast.ts). */
  readonly lookaheadLiteral: string | null;
  /** Set when the pattern is nothing but literals (`<tool_call>`, `</think>|<\|im_end\|>`): searched without the VM. */
  private readonly alternatives: readonly string[] | null;
  private readonly longestAlternative: number;
  /**
   * Searches of a growing text pick up where the last one stopped (a lookahead literal or literal alternatives,
   * given the caller's scan state), so retrying them on every chunk costs only the new text.
   */
  readonly resumable: boolean;

  constructor(readonly source: string) {
    const parsed = parsePattern(source);
    const compiled = compileProgram(parsed.root, parsed.groupCount);
    this.groupCount = parsed.groupCount;
    this.names = parsed.names;
    this.canBeEmpty = widthOf(parsed.root).min === 0;
    this.program = compiled.program;
    this.slotCount = compiled.slotCount;
    this.first = firstTest(parsed.root);
    this.lookaheadLiteral = lookaheadLiteral(parsed.root);
    this.alternatives = parsed.groupCount === 0 ? literalAlternatives(parsed.root) : null;
    this.longestAlternative = Math.max(0, ...(this.alternatives ?? []).map((l) => l.length));
    this.resumable = this.lookaheadLiteral !== null || this.alternatives !== null;
    this.literals = leadingLiterals(parsed.root);
    this.longestLiteral = Math.max(0, ...(this.literals ?? []).map((l) => l.length));
    this.scratch = { caps: new Int32Array(this.slotCount), stack: [], lookMemo: new Map(), lookVisited: new Map(), literals: literalState() };
  }

  /** A shared compiled pattern for `source` (patterns are immutable; their memo pages are per search). */
  static compile(source: string): PyRegex {
    let re = cache.get(source);
    if (re) {
      cache.delete(source);
    } else {
      re = new PyRegex(source);
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, re);
    return re;
  }

  /**
   * `regex.search(input, pos, partial=partial)`: the leftmost complete match from `pos`; in partial mode, when there
   * is none, the start of the leftmost attempt that ran into the end of the input.
   */
  search(input: string, pos: number, partial: boolean, opts: SearchOptions = {}): SearchResult {
    const n = input.length;
    const { stats, notEmptyAt = -1 } = opts;
    if (this.lookaheadLiteral !== null && notEmptyAt < 0) return this.searchLookahead(input, pos, partial, opts);
    if (this.alternatives !== null) return this.searchAlternatives(input, pos, partial, opts);
    const resume = opts.resume;
    let from = pos;
    if (resume && pos >= resume.from && pos <= resume.to) from = resume.to;
    else if (resume) { resume.from = pos; resume.to = pos; }
    const prog = this.program;
    const perChar = prog.memo ? BUDGET_PER_STATE * prog.insts.length : BACKREF_BUDGET_PER_CHAR;
    const ctx: SearchContext = {
      input, n, base: from, steps: 0, slotCount: this.slotCount, trimmed: opts.trimmed ?? false,
      budget: BUDGET_BASE + perChar * (n - from + 1),
      lookMemo: this.scratch.lookMemo, lookVisited: this.scratch.lookVisited, memo: { live: 0, peak: 0 }, stack: this.scratch.stack,
    };
    if (ctx.stack.length > 0) ctx.stack.length = 0;
    if (ctx.lookMemo.size > 0) ctx.lookMemo.clear();
    const visited = prog.memo ? new Visited(prog, from, ctx.memo) : null;
    const scanner = this.literals ? new LiteralScanner(this.literals, this.longestLiteral, input, opts.literals ?? this.freshLiterals()) : null;
    const a: Attempt = { prog, start: from, caps: this.scratch.caps, visited, limit: n, matchEnd: -1, notEmptyAt, hitEnd: false, touched: false };
    let partialStart = -1, firstTouched = -1;
    // Once per search, not per attempt: a failed attempt undoes every capture it wrote (vm.ts backtracking).
    a.caps.fill(-1);
    try {
      for (let s = from; s <= n; s += s < n && cpAt(input, s) > 0xffff ? 2 : 1) {
        if (scanner) s = scanner.candidate(s);
        if (s < n && this.first && !this.canStart(cpAt(input, s))) continue;
        // Attempts only read forward: memo before this start is dead.
        if (visited) visited.release(s);
        if (ctx.lookVisited.size > 0) for (const v of ctx.lookVisited.values()) v.release(s);
        a.start = s;
        a.hitEnd = a.touched = false;
        if (run(ctx, a)) return { partial: false, match: this.toMatch(input, a.caps, a.touched) };
        if (a.hitEnd && partialStart < 0) partialStart = s;
        if (a.touched && firstTouched < 0) firstTouched = s;
      }
    } finally {
      visited?.dispose();
      if (ctx.lookVisited.size > 0) {
        for (const v of ctx.lookVisited.values()) v.dispose();
        ctx.lookVisited.clear();
      }
      if (stats) {
        stats.steps += ctx.steps;
        if (ctx.memo.peak > stats.memoPeak) stats.memoPeak = ctx.memo.peak;
      }
    }
    if (resume) resume.to = firstTouched >= 0 ? firstTouched : n;
    if (!partial) return null;
    if (partialStart >= 0) return { partial: true, start: partialStart };
    // With nothing at all, the regex module still reports a partial match at the end when the pattern needs text.
    return this.canBeEmpty ? null : { partial: true, start: n };
  }

  /**
   * `search` for a pattern of literal alternatives, with the same answers the VM gives: the leftmost position where
   * one occurs (the first alternative in pattern order at that position), else in partial mode the leftmost position
   * whose rest of the text is a proper prefix of an alternative (the attempt there ran into the end), else the end.
   * Alternatives hold no surrogates (see literalAlternatives), so an occurrence always starts on a code point.
   */
  private searchAlternatives(input: string, pos: number, partial: boolean, opts: SearchOptions): SearchResult {
    const n = input.length, alternatives = this.alternatives!, resume = opts.resume;
    let from = pos;
    if (resume && pos >= resume.from && pos <= resume.to) from = resume.to;
    else if (resume) { resume.from = pos; resume.to = pos; }
    const state = opts.literals ?? this.freshLiterals();
    let best = -1, bestText = '';
    for (const text of alternatives) {
      const at = nextOccurrence(input, text, state.mark(text), from);
      if (at >= 0 && (best < 0 || at < best)) { best = at; bestText = text; }
    }
    // Steps count what the VM would have been asked (one per alternative, and per position tried at the end), not
    // the characters indexOf passes over, as with the literal prefilter.
    let steps = alternatives.length;
    if (best >= 0) {
      if (opts.stats) opts.stats.steps += steps;
      return { partial: false, match: { start: best, end: best + bestText.length, groups: [bestText] } };
    }
    let partialStart = n;
    for (let s = Math.max(from, n - this.longestAlternative + 1); s < n; s++) {
      const rest = input.slice(s);
      steps++;
      if (alternatives.some((text) => text.length > rest.length && text.startsWith(rest))) { partialStart = s; break; }
    }
    if (opts.stats) opts.stats.steps += steps;
    if (resume) resume.to = partialStart;
    return partial ? { partial: true, start: partialStart } : null;
  }

  /** The leftmost start from `pos` where the literal occurs later is `pos` itself, if it occurs at all. */
  private searchLookahead(input: string, pos: number, partial: boolean, opts: SearchOptions): SearchResult {
    const literal = this.lookaheadLiteral!;
    const scan = opts.literalScan;
    let from = pos;
    if (scan && pos >= scan.from && pos <= scan.to) from = scan.to;
    else if (scan) { scan.from = pos; scan.to = pos; }
    const at = input.indexOf(literal, from);
    if (opts.stats) opts.stats.steps += (at < 0 ? input.length : at) - from + 1;
    if (at >= 0) return { partial: false, match: { start: pos, end: pos, groups: [''] } };
    if (scan) scan.to = Math.max(scan.from, input.length - literal.length + 1);
    // The lazy scan ran into the end: a partial match at `pos` (a complete one nowhere).
    return partial ? { partial: true, start: pos } : null;
  }

  /** Python `finditer` (3.7+ empty-match rules): non-overlapping complete matches, left to right. */
  finditer(input: string, stats?: RegexStats): RegexMatch[] {
    const out: RegexMatch[] = [];
    const literals = literalState();
    let pos = 0, notEmptyAt = -1;
    while (pos <= input.length) {
      const r = this.search(input, pos, false, { ...(stats ? { stats } : {}), notEmptyAt, literals });
      if (!r || r.partial) break;
      out.push(r.match);
      pos = r.match.end;
      notEmptyAt = r.match.start === r.match.end ? pos : -1;
    }
    return out;
  }

  /** Scanning state for a search with none kept by its caller (reset: nothing is known about a new text). */
  private freshLiterals(): LiteralState {
    const state = this.scratch.literals;
    state.clear();
    return state;
  }

  private canStart(cp: number): boolean {
    if (cp > 0xffff) return this.first!(cp);
    const table = this.firstTable ??= new Uint8Array(0x10000);
    let verdict = table[cp]!;
    if (verdict === 0) table[cp] = verdict = this.first!(cp) ? 1 : 2;
    return verdict === 1;
  }

  groupIndex(name: string): number | undefined {
    return this.names.get(name);
  }

  private toMatch(input: string, caps: Int32Array, touchedEnd: boolean): RegexMatch {
    const groups: Array<string | undefined> = [];
    for (let g = 0; g <= this.groupCount; g++) {
      const from = caps[2 * g]!, to = caps[2 * g + 1]!;
      groups.push(from >= 0 && to >= 0 ? input.slice(from, to) : undefined);
    }
    return touchedEnd ? { start: caps[0]!, end: caps[1]!, groups, endDependent: true } : { start: caps[0]!, end: caps[1]!, groups };
  }
}

/** Escapes a literal for a pattern (delimiter lists compile to alternations of escaped literals). */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}#&~\s-]/g, (ch) => (ch === '\n' ? '\\n' : ch === '\t' ? '\\t' : ch === '\r' ? '\\r' : ch === '\f' ? '\\f' : ch === '\v' ? '\\v' : `\\${ch}`));
}

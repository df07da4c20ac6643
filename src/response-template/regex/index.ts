// Python `regex`-module patterns (what transformers compiles response templates with), run by chatfmt's own matcher.
// Why not JS RegExp for complete matches plus a separate partial matcher: transformers asks one question per
// delimiter, `search(buffer, pos, partial=True)`, whose answer (complete match anywhere, else the leftmost attempt
// that ran into the end) depends on the whole backtracking order; answering both halves with one matcher keeps them
// consistent by construction. The dialect differences (Unicode \w\s\d\b, `$` before a final newline, `{,n}`,
// (?P<name>), code-point indexing) then live in one parser, and model output cannot make a search backtrack
// catastrophically (vm.ts). Checked against regex 2026.5.9 on every published template pattern.
import { firstTest, lookaheadLiteral, widthOf, type CpTest } from './ast.js';
import { parsePattern } from './parse.js';
import { compileProgram, type Program } from './program.js';
import { cpAt, run, Visited, type Attempt, type SearchContext } from './vm.js';

export { RegexSyntaxError } from './parse.js';
export { RegexBudgetError } from './vm.js';

export interface RegexMatch {
  start: number;
  end: number;
  /** Group texts by number (index 0 = whole match); undefined for groups that did not participate. */
  groups: Array<string | undefined>;
}

export type SearchResult = { partial: false; match: RegexMatch } | { partial: true; start: number } | null;

/** Counts matcher steps across searches (exposed so callers and tests can see that work stays bounded). */
export interface RegexStats { steps: number }

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
}

/** Steps allowed per search: generous for memoised patterns, whose work is bounded by program × text anyway. */
const BUDGET_BASE = 200_000;
const BUDGET_PER_STATE = 32;

/** A pattern compiled with the Python `regex` module's semantics (DOTALL, no MULTILINE). */
export class PyRegex {
  readonly groupCount: number;
  readonly names: ReadonlyMap<string, number>;
  /** The pattern can match the empty string somewhere (a zero-width delimiter). */
  readonly canBeEmpty: boolean;
  private readonly program: Program;
  private readonly slotCount: number;
  private readonly first: CpTest | null;
  /** Set when the pattern is `(?=[\s\S]*?L)`: searched as "does L occur from here" (see ast.ts). */
  readonly lookaheadLiteral: string | null;

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
  }

  /**
   * `regex.search(input, pos, partial=partial)`: the leftmost complete match from `pos`; in partial mode, when there
   * is none, the start of the leftmost attempt that ran into the end of the input.
   */
  search(input: string, pos: number, partial: boolean, opts: SearchOptions = {}): SearchResult {
    const n = input.length;
    const { stats, notEmptyAt = -1 } = opts;
    if (this.lookaheadLiteral !== null && notEmptyAt < 0) return this.searchLookahead(input, pos, partial, opts);
    const resume = opts.resume;
    let from = pos;
    if (resume && pos >= resume.from && pos <= resume.to) from = resume.to;
    else if (resume) { resume.from = pos; resume.to = pos; }
    const ctx: SearchContext = {
      input, n, base: from, steps: 0, slotCount: this.slotCount, trimmed: opts.trimmed ?? false,
      budget: BUDGET_BASE + BUDGET_PER_STATE * this.program.insts.length * (n - from + 1),
      lookMemo: new Map(), lookVisited: new Map(),
    };
    const visited = this.program.memo ? new Visited(this.program, from, n) : null;
    let partialStart = -1, firstTouched = -1;
    try {
      for (let s = from; s <= n; s += s < n && cpAt(input, s) > 0xffff ? 2 : 1) {
        if (s < n && this.first && !this.first(cpAt(input, s))) continue;
        const a: Attempt = { prog: this.program, start: s, caps: new Int32Array(this.slotCount).fill(-1), visited, limit: n, matchEnd: -1, notEmptyAt, hitEnd: false, touched: false };
        if (run(ctx, a)) return { partial: false, match: this.toMatch(input, a.caps) };
        if (a.hitEnd && partialStart < 0) partialStart = s;
        if (a.touched && firstTouched < 0) firstTouched = s;
      }
    } finally {
      if (stats) stats.steps += ctx.steps;
    }
    if (resume) resume.to = firstTouched >= 0 ? firstTouched : n;
    if (!partial) return null;
    if (partialStart >= 0) return { partial: true, start: partialStart };
    // With nothing at all, the regex module still reports a partial match at the end when the pattern needs text.
    return this.canBeEmpty ? null : { partial: true, start: n };
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
    let pos = 0, notEmptyAt = -1;
    while (pos <= input.length) {
      const r = this.search(input, pos, false, { ...(stats ? { stats } : {}), notEmptyAt });
      if (!r || r.partial) break;
      out.push(r.match);
      pos = r.match.end;
      notEmptyAt = r.match.start === r.match.end ? pos : -1;
    }
    return out;
  }

  groupIndex(name: string): number | undefined {
    return this.names.get(name);
  }

  private toMatch(input: string, caps: Int32Array): RegexMatch {
    const groups: Array<string | undefined> = [];
    for (let g = 0; g <= this.groupCount; g++) {
      const from = caps[2 * g]!, to = caps[2 * g + 1]!;
      groups.push(from >= 0 && to >= 0 ? input.slice(from, to) : undefined);
    }
    return { start: caps[0]!, end: caps[1]!, groups };
  }
}

/** Escapes a literal for a pattern (delimiter lists compile to alternations of escaped literals). */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}#&~\s-]/g, (ch) => (ch === '\n' ? '\\n' : ch === '\t' ? '\\t' : ch === '\r' ? '\\r' : ch === '\f' ? '\\f' : ch === '\v' ? '\\v' : `\\${ch}`));
}

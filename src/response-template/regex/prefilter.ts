import type { Node } from './ast.js';

/**
 * Literal prefilter: the literals one of which every match starts with, found with indexOf instead of trying the
 * matcher at every position. `(?:</think>|<\|im_end\|>)|(?=<tool_call>)` gives three literals, `(?:<tool_call>\s*)?
 * <function=` gives `<tool_call>` and `<function=`. Only facts that hold for the text at the start count: zero-width
 * assertions that cannot report a partial match are stepped over, anything else ends the literal.
 */
const MAX_LITERALS = 64;
const MAX_LITERAL = 64;

/** A literal and whether it can still be extended by what follows it in a sequence. */
interface Lead { text: string; open: boolean }

/** The leading literals of a pattern, or null when some match can start without one (or with too many). */
export function leadingLiterals(root: Node): string[] | null {
  const leads = lead(root);
  if (!leads || leads.some((l) => l.text === '')) return null;
  const texts = [...new Set(leads.map((l) => l.text))].sort((a, b) => a.length - b.length);
  // A lone low surrogate could match inside a pair, where no code point starts.
  if (texts.some((t) => { const c = t.charCodeAt(0); return c >= 0xdc00 && c <= 0xdfff; })) return null;
  // A literal that another one starts with adds nothing: the shorter one already finds its occurrences.
  return texts.filter((t, i) => !texts.slice(0, i).some((shorter) => t.startsWith(shorter)));
}

/**
 * The alternatives, in pattern order, of a pattern made only of literal text (`a`, `ab|a`); null for anything else,
 * and for literals with surrogates (a lone one compares as a code point, never as half of a pair).
 */
export function literalAlternatives(root: Node): string[] | null {
  const items = root.t === 'alt' ? root.items : [root];
  const out: string[] = [];
  for (const item of items) {
    const text = literalText(item);
    if (text === null || text === '' || /[\ud800-\udfff]/.test(text)) return null;
    out.push(text);
  }
  return out;
}

function literalText(node: Node): string | null {
  if (node.t === 'char') return String.fromCodePoint(node.cp);
  if (node.t !== 'cat') return null;
  let text = '';
  for (const item of node.items) {
    const part = literalText(item);
    if (part === null) return null;
    text += part;
  }
  return text;
}

function lead(node: Node): Lead[] | null {
  switch (node.t) {
    case 'empty': case 'assert': return [{ text: '', open: true }];
    case 'char': return [{ text: String.fromCodePoint(node.cp), open: true }];
    case 'set': case 'backref': return null;
    case 'group': return lead(node.body);
    case 'look': {
      // Negative lookarounds and lookbehinds never report a partial match, so they can be stepped over; a positive
      // lookahead can, unless its own leading literal fails first.
      if (node.neg || !node.ahead) return [{ text: '', open: true }];
      const body = lead(node.body);
      return body && body.every((l) => l.text !== '') ? close(body) : null;
    }
    case 'alt': {
      const out: Lead[] = [];
      for (const item of node.items) {
        const l = lead(item);
        if (!l) return null;
        out.push(...l);
      }
      return out.length > MAX_LITERALS ? null : out;
    }
    case 'repeat': {
      if (node.max === 0) return [{ text: '', open: true }];
      const body = lead(node.body);
      if (!body) return null;
      const once = node.min === 1 && node.max === 1 ? body : close(body);
      return node.min === 0 ? [...once, { text: '', open: true }] : once;
    }
    case 'cat': {
      let out: Lead[] = [{ text: '', open: true }];
      for (const item of node.items) {
        if (!out.some((l) => l.open)) break;
        const next = lead(item);
        if (!next) { out = close(out); break; }
        const joined: Lead[] = [];
        for (const l of out) {
          if (!l.open) { joined.push(l); continue; }
          for (const m of next) joined.push({ text: l.text + m.text, open: m.open && l.text.length + m.text.length < MAX_LITERAL });
        }
        if (joined.length > MAX_LITERALS) { out = close(out); break; }
        out = joined;
      }
      return out;
    }
  }
}

function close(leads: Lead[]): Lead[] {
  return leads.map((l) => ({ text: l.text, open: false }));
}

/** What is known about one literal in a growing text: no occurrence starts in [lo, hi); `found` says one starts at hi. */
interface LiteralMark { lo: number; hi: number; found: boolean }

/**
 * Where each literal was last looked for, kept by a caller across searches of one growing text (text is only
 * appended, so what was proven stays proven). Without it a literal that never occurs would be rescanned to the end on
 * every search, which made a close delimiter list like `<tool_call|>`/`<turn|>` quadratic over a long completion.
 * Keyed by the literal, not by the pattern: delimiters that share a literal (`<|im_end|>` closes both Qwen3's thinking
 * and its content) then scan for it once.
 */
export class LiteralState {
  private readonly marks = new Map<string, LiteralMark>();

  mark(literal: string): LiteralMark {
    let mark = this.marks.get(literal);
    if (!mark) this.marks.set(literal, mark = { lo: -1, hi: -1, found: false });
    return mark;
  }

  /** Forgets everything (a new text, or one whose start was cut so positions moved). */
  clear(): void {
    this.marks.clear();
  }
}

export function literalState(): LiteralState {
  return new LiteralState();
}

/** The first occurrence of `literal` at or after `from` in `input` (or -1), using and extending what `mark` knows. */
export function nextOccurrence(input: string, literal: string, mark: LiteralMark, from: number): number {
  const known = from >= mark.lo && from <= mark.hi;
  if (known && mark.found) return mark.hi;
  if (!known) mark.lo = from;
  const at = input.indexOf(literal, known ? mark.hi : from);
  mark.found = at >= 0;
  mark.hi = at >= 0 ? at : Math.max(mark.lo, input.length - literal.length + 1);
  return at;
}

/**
 * Candidate starts of one search: positions where a literal occurs, then every position from where the longest
 * literal no longer fits (an attempt there can run into the end, which is a partial match).
 */
export class LiteralScanner {
  private readonly tail: number;
  private readonly marks: LiteralMark[];

  constructor(private readonly literals: readonly string[], longest: number, private readonly input: string, state: LiteralState) {
    this.tail = input.length - longest + 1;
    this.marks = literals.map((literal) => state.mark(literal));
  }

  /** The first candidate start at or after `from`. */
  candidate(from: number): number {
    if (from >= this.tail) return from;
    let best = this.tail;
    for (let k = 0; k < this.literals.length; k++) {
      const at = nextOccurrence(this.input, this.literals[k]!, this.marks[k]!, from);
      if (at >= 0 && at < best) best = at;
    }
    return best;
  }
}

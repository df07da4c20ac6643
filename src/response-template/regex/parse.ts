import { ANY, type CpTest, type Node, type ParsedPattern } from './ast.js';
import { isDigitCp, isRegexSpaceCp, isWordCp } from './unicode.js';

/** A pattern the Python `regex` module rejects, or that chatfmt refuses to run (named construct, position). */
export class RegexSyntaxError extends Error {}

const not = (t: CpTest): CpTest => (cp) => !t(cp);
const CLASS_ESCAPES: Record<string, CpTest> = {
  d: isDigitCp, D: not(isDigitCp), w: isWordCp, W: not(isWordCp), s: isRegexSpaceCp, S: not(isRegexSpaceCp),
};
const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
const REFUSED_ESCAPES: Record<string, string> = {
  K: '\\K', G: '\\G', X: '\\X (grapheme)', N: '\\N{...}', L: '\\L (named lists)', m: '\\m', M: '\\M', h: '\\h',
};

/**
 * Groups (of any kind: capture, non-capture, lookaround) nested deeper are refused. The parser and every walk over the
 * tree (program, width and first-character analyses, the matcher's lookarounds) recurse once or more per level, so
 * 100,000 `(` ran them out of stack; real patterns nest a few levels.
 */
export const MAX_GROUP_DEPTH = 256;

/** Parses a Python `regex`-module pattern (V0, DOTALL, no inline flags) into a tree; refuses what it cannot run. */
export function parsePattern(source: string): ParsedPattern {
  return new Parser(source).parse();
}

class Parser {
  private readonly cps: number[];
  /**
   * The UTF-16 offset of each code point (and of the end): what the pattern's text from a code point on is read at.
   * Counted once here; counted again at every `{` or `\g<`, a pattern of 100,000 braces took 38 s to refuse.
   */
  private readonly offsets: Uint32Array;
  private i = 0;
  private depth = 0;
  private groupCount = 0;
  private readonly names = new Map<string, number>();
  private readonly backrefs: Array<{ node: Node & { t: 'backref' }; name?: string; at: number }> = [];

  constructor(private readonly source: string) {
    this.cps = Array.from(source, (ch) => ch.codePointAt(0)!);
    this.offsets = new Uint32Array(this.cps.length + 1);
    for (let k = 0; k < this.cps.length; k++) this.offsets[k + 1] = this.offsets[k]! + (this.cps[k]! > 0xffff ? 2 : 1);
  }

  parse(): ParsedPattern {
    const root = this.alternation();
    if (this.i < this.cps.length) this.fail(this.peekChar() === ')' ? 'unbalanced parenthesis' : 'unexpected character');
    for (const ref of this.backrefs) {
      if (ref.name !== undefined) {
        const index = this.names.get(ref.name);
        if (index === undefined) this.fail(`unknown group name '${ref.name}'`, ref.at);
        ref.node.index = index;
      } else if (ref.node.index > this.groupCount) this.fail('invalid group reference', ref.at);
    }
    return { root, groupCount: this.groupCount, names: this.names };
  }

  private fail(message: string, at = this.i): never {
    throw new RegexSyntaxError(`${message} at position ${at}`);
  }

  private peekChar(offset = 0): string | undefined {
    const cp = this.cps[this.i + offset];
    return cp === undefined ? undefined : String.fromCodePoint(cp);
  }

  private eat(ch: string): boolean {
    if (this.peekChar() !== ch) return false;
    this.i++;
    return true;
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.eat('|')) items.push(this.sequence());
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      const ch = this.peekChar();
      if (ch === undefined || ch === '|' || ch === ')') break;
      const atom = this.atom();
      if (atom === null) continue;
      items.push(this.quantified(atom));
    }
    return items.length === 0 ? { t: 'empty' } : items.length === 1 ? items[0]! : { t: 'cat', items };
  }

  private quantified(atom: Node): Node {
    const q = this.quantifier();
    if (q === null) return atom;
    if (this.peekChar() === '+') this.fail('possessive quantifiers are not supported');
    const greedy = !this.eat('?');
    if (this.quantifierAhead()) this.fail('multiple repeat');
    // The regex module accepts a repeated assertion: it holds once, or is skipped when zero repeats are allowed.
    if (atom.t === 'assert' || atom.t === 'empty') return q.min === 0 ? { t: 'empty' } : atom;
    return { t: 'repeat', body: atom, min: q.min, max: q.max, greedy };
  }

  private quantifierAhead(): boolean {
    const ch = this.peekChar();
    if (ch === '*' || ch === '+' || ch === '?') return true;
    if (ch !== '{') return false;
    const save = this.i;
    const q = this.quantifier();
    this.i = save;
    return q !== null;
  }

  /** `* + ? {m} {m,} {,n} {m,n}`; a `{` that is not one of these is a literal, as in Python. */
  private quantifier(): { min: number; max: number } | null {
    const ch = this.peekChar();
    if (ch === '*') { this.i++; return { min: 0, max: Infinity }; }
    if (ch === '+') { this.i++; return { min: 1, max: Infinity }; }
    if (ch === '?') { this.i++; return { min: 0, max: 1 }; }
    if (ch !== '{') return null;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.text(this.i));
    if (!m || (m[1] === '' && m[2] === undefined)) return null;
    this.i += m[0].length;
    const min = m[1] === '' ? 0 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (max < min) this.fail('min repeat greater than max repeat');
    return { min, max };
  }

  /**
   * The pattern's text from code point `start` to `end` (default: to the end). A slice, not String.fromCodePoint(...):
   * spreading a long group name or property as arguments overflows the stack.
   */
  private text(start: number, end = this.cps.length): string {
    return this.source.slice(this.offsets[start], this.offsets[Math.min(end, this.cps.length)]);
  }

  private atom(): Node | null {
    const ch = this.peekChar()!;
    switch (ch) {
      case '(': return this.group();
      case '[': this.i++; return { t: 'set', test: this.charClass() };
      case '.': this.i++; return { t: 'set', test: ANY };
      case '^': this.i++; return { t: 'assert', kind: 'start' };
      case '$': this.i++; return { t: 'assert', kind: 'end' };
      case '\\': return this.escape();
      case '*': case '+': case '?': this.fail('nothing to repeat');
      // falls through (fail never returns)
      case '{':
        if (this.quantifierAhead()) this.fail('nothing to repeat');
        this.i++;
        return { t: 'char', cp: 0x7b };
      default: return { t: 'char', cp: this.cps[this.i++]! };
    }
  }

  private group(): Node | null {
    if (this.depth === MAX_GROUP_DEPTH) this.fail(`groups nested deeper than ${MAX_GROUP_DEPTH} levels are not supported`);
    this.depth++;
    const node = this.groupBody();
    this.depth--;
    return node;
  }

  private groupBody(): Node | null {
    const at = this.i;
    this.i++;
    if (!this.eat('?')) return this.capture(undefined);
    const ch = this.peekChar();
    if (ch === ':') { this.i++; return this.closeGroup(this.alternation(), at); }
    if (ch === '=' || ch === '!') {
      this.i++;
      return this.closeGroup({ t: 'look', ahead: true, neg: ch === '!', body: this.alternation() }, at);
    }
    if (ch === '#') {
      while (this.i < this.cps.length && this.peekChar() !== ')') this.i++;
      if (!this.eat(')')) this.fail('missing ), unterminated comment', at);
      return null;
    }
    if (ch === 'P' && this.peekChar(1) === '=') {
      this.i += 2;
      const name = this.name(')');
      return this.named(name, at);
    }
    if (ch === 'P' && this.peekChar(1) === '<') { this.i += 2; return this.capture(this.name('>')); }
    if (ch === '<' && (this.peekChar(1) === '=' || this.peekChar(1) === '!')) {
      const neg = this.peekChar(1) === '!';
      this.i += 2;
      return this.closeGroup({ t: 'look', ahead: false, neg, body: this.alternation() }, at);
    }
    if (ch === '<') { this.i++; return this.capture(this.name('>')); }
    if (ch === 's' && (this.peekChar(1) === ')' || this.peekChar(1) === ':')) {
      // DOTALL is already on; (?s) and (?s:...) change nothing.
      this.i++;
      if (this.eat(')')) return null;
      this.i++;
      return this.closeGroup(this.alternation(), at);
    }
    const what = ch === '>' ? 'atomic groups' : ch === '|' ? 'branch reset groups' : ch === '(' ? 'conditional groups'
      : ch === 'R' || ch === '&' || (ch !== undefined && /[0-9+-]/.test(ch)) ? 'recursion' : 'inline flags and other (?...) extensions';
    this.fail(`${what} are not supported`, at);
  }

  private named(name: string, at: number): Node {
    const node: Node & { t: 'backref' } = { t: 'backref', index: 0 };
    this.backrefs.push({ node, name, at });
    return node;
  }

  private capture(name: string | undefined): Node {
    const at = this.i;
    // The regex module lets a name repeat: every group of that name is one group (one number, last capture wins).
    const known = name === undefined ? undefined : this.names.get(name);
    const index = known ?? ++this.groupCount;
    if (name !== undefined) this.names.set(name, index);
    return this.closeGroup({ t: 'group', index, body: this.alternation() }, at);
  }

  private closeGroup(node: Node, at: number): Node {
    if (!this.eat(')')) this.fail('missing ), unterminated subpattern', at);
    return node;
  }

  private name(terminator: string): string {
    const start = this.i;
    while (this.i < this.cps.length && this.peekChar() !== terminator) this.i++;
    if (this.i >= this.cps.length) this.fail('missing group name terminator', start);
    const name = this.text(start, this.i);
    this.i++;
    if (!/^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u.test(name)) this.fail(`bad character in group name '${name}'`, start);
    return name;
  }

  private escape(): Node {
    const at = this.i;
    this.i++;
    const ch = this.peekChar();
    if (ch === undefined) this.fail('bad escape (end of pattern)', at);
    if (ch === 'A') { this.i++; return { t: 'assert', kind: 'start' }; }
    if (ch === 'Z') { this.i++; return { t: 'assert', kind: 'endZ' }; }
    if (ch === 'b') { this.i++; return { t: 'assert', kind: 'word' }; }
    if (ch === 'B') { this.i++; return { t: 'assert', kind: 'nonword' }; }
    if (ch === 'g' && this.peekChar(1) === '<') {
      this.i += 2;
      const name = this.nameOrNumber();
      const node: Node & { t: 'backref' } = { t: 'backref', index: typeof name === 'number' ? name : 0 };
      if (typeof name === 'number') { this.backrefs.push({ node, at }); return node; }
      return this.named(name, at);
    }
    if (/[1-9]/.test(ch) && !this.isOctal()) {
      let digits = ch;
      this.i++;
      if (/[0-9]/.test(this.peekChar() ?? '')) digits += this.peekChar()!, this.i++;
      const node: Node & { t: 'backref' } = { t: 'backref', index: Number(digits) };
      this.backrefs.push({ node, at });
      return node;
    }
    const cls = this.classEscape();
    if (cls !== null) return { t: 'set', test: cls };
    return { t: 'char', cp: this.charEscape(at) };
  }

  private nameOrNumber(): string | number {
    // Anchored, so it reads the digits only (splitting the rest of the pattern at '>' read all of it at every `\g<`).
    const number = /^\d+(?=>)/.exec(this.text(this.i))?.[0];
    if (number !== undefined) { this.i += number.length + 1; return Number(number); }
    return this.name('>');
  }

  private isOctal(): boolean {
    return [0, 1, 2].every((k) => /[0-7]/.test(this.peekChar(k) ?? ''));
  }

  /** \d \w \s and negations, \p{...}/\P{...}; null when the escape is not a class. Leaves `i` past it. */
  private classEscape(): CpTest | null {
    const ch = this.peekChar()!;
    const known = CLASS_ESCAPES[ch];
    if (known) { this.i++; return known; }
    if (ch !== 'p' && ch !== 'P') return null;
    const at = this.i - 1;
    this.i++;
    let prop: string;
    if (this.eat('{')) {
      const start = this.i;
      while (this.i < this.cps.length && this.peekChar() !== '}') this.i++;
      if (!this.eat('}')) this.fail('missing } in property escape', at);
      prop = this.text(start, this.i - 1);
    } else {
      prop = this.peekChar() ?? '';
      this.i++;
    }
    const re = propertyRegExp(prop.replace(/^\^/, ''));
    if (!re) this.fail(`unknown property '${prop}'`, at);
    const negate = (ch === 'P') !== prop.startsWith('^');
    return negate ? (cp) => !re.test(String.fromCodePoint(cp)) : (cp) => re.test(String.fromCodePoint(cp));
  }

  /** One literal code point from an escape (the backslash already consumed, `i` at the escaped character). */
  private charEscape(at: number): number {
    const ch = this.peekChar()!;
    this.i++;
    if (SIMPLE_ESCAPES[ch] !== undefined) return SIMPLE_ESCAPES[ch];
    if (ch === 'x') return this.hex(2, at);
    if (ch === 'u') return this.hex(4, at);
    if (ch === 'U') return this.hex(8, at);
    if (/[0-7]/.test(ch)) {
      let digits = ch;
      while (digits.length < 3 && /[0-7]/.test(this.peekChar() ?? '')) digits += this.peekChar()!, this.i++;
      const cp = parseInt(digits, 8);
      if (cp > 0o377) this.fail('octal escape value outside of range', at);
      return cp;
    }
    if (REFUSED_ESCAPES[ch]) this.fail(`${REFUSED_ESCAPES[ch]} is not supported`, at);
    if (/[A-Za-z0-9]/.test(ch)) this.fail(`bad escape \\${ch}`, at);
    return ch.codePointAt(0)!;
  }

  private hex(count: number, at: number): number {
    const digits = this.text(this.i, this.i + count);
    if (digits.length !== count || !/^[0-9a-fA-F]+$/.test(digits)) this.fail('incomplete escape', at);
    this.i += count;
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) this.fail('bad escape (code point out of range)', at);
    return cp;
  }

  private charClass(): CpTest {
    const at = this.i - 1;
    const negate = this.eat('^');
    const tests: CpTest[] = [];
    let first = true;
    for (;;) {
      const ch = this.peekChar();
      if (ch === undefined) this.fail('unterminated character set', at);
      if (ch === ']' && !first) { this.i++; break; }
      first = false;
      if (ch === '[' && this.peekChar(1) === ':') this.fail('POSIX character classes are not supported');
      const lo = this.classAtom();
      if (typeof lo !== 'number') { tests.push(lo); continue; }

      if (this.peekChar() === '-' && this.peekChar(1) !== ']' && this.peekChar(1) !== undefined) {
        this.i++;
        const hi = this.classAtom();
        if (typeof hi !== 'number') this.fail('bad character range');
        if (hi < lo) this.fail('bad character range');
        tests.push((cp) => cp >= lo && cp <= hi);
      } else tests.push((cp) => cp === lo);
    }
    const everything = ['d', 's', 'w'].some((k) => tests.includes(CLASS_ESCAPES[k]!) && tests.includes(CLASS_ESCAPES[k.toUpperCase()]!));
    if (everything && !negate) return ANY;
    const any: CpTest = (cp) => tests.some((t) => t(cp));
    return negate ? not(any) : any;
  }

  private classAtom(): number | CpTest {
    if (this.peekChar() !== '\\') return this.cps[this.i++]!;
    const at = this.i;
    this.i++;
    if (this.peekChar() === undefined) this.fail('bad escape (end of pattern)', at);
    const cls = this.classEscape();
    if (cls !== null) return cls;
    if (this.peekChar() === 'b') { this.i++; return 8; }
    return this.charEscape(at);
  }
}

/** `\p{X}` as the regex module resolves a bare name: a category or binary property, else a script. */
function propertyRegExp(name: string): RegExp | null {
  for (const form of [name, `Script=${name}`, `Script_Extensions=${name}`]) {
    try { return new RegExp(`^\\p{${form}}$`, 'u'); } catch { /* try the next reading */ }
  }
  return null;
}

/** Syntax tree of the Python `regex` subset response templates use (DOTALL on, MULTILINE off, no inline flags). */
export type CpTest = (cp: number) => boolean;

export type Node =
  | { t: 'empty' }
  | { t: 'char'; cp: number }
  | { t: 'set'; test: CpTest }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'group'; index: number; body: Node }
  | { t: 'repeat'; body: Node; min: number; max: number; greedy: boolean }
  /** start: ^ and \A; end: Python `$` (end, or before a final \n); endZ: \Z; word/nonword: \b \B. */
  | { t: 'assert'; kind: 'start' | 'end' | 'endZ' | 'word' | 'nonword' }
  | { t: 'look'; ahead: boolean; neg: boolean; body: Node }
  | { t: 'backref'; index: number };

/** The class that matches every code point (`.` under DOTALL, `[\s\S]`, `[\w\W]`, `[\d\D]`). */
export const ANY: CpTest = () => true;

export interface ParsedPattern {
  root: Node;
  groupCount: number;
  names: Map<string, number>;
}

/** Width bounds in code points (max = Infinity when unbounded). */
export function widthOf(node: Node): { min: number; max: number } {
  switch (node.t) {
    case 'empty': case 'assert': case 'look': return { min: 0, max: 0 };
    case 'char': case 'set': return { min: 1, max: 1 };
    case 'backref': return { min: 0, max: Infinity };
    case 'group': return widthOf(node.body);
    case 'cat': return node.items.reduce((acc, item) => {
      const w = widthOf(item);
      return { min: acc.min + w.min, max: acc.max + w.max };
    }, { min: 0, max: 0 });
    case 'alt': {
      const ws = node.items.map(widthOf);
      return { min: Math.min(...ws.map((w) => w.min)), max: Math.max(...ws.map((w) => w.max)) };
    }
    case 'repeat': {
      const w = widthOf(node.body);
      return { min: w.min * node.min, max: w.max === 0 ? 0 : w.max * node.max };
    }
  }
}

export function hasBackref(node: Node): boolean {
  switch (node.t) {
    case 'backref': return true;
    case 'cat': case 'alt': return node.items.some(hasBackref);
    case 'group': case 'repeat': case 'look': return hasBackref(node.body);
    default: return false;
  }
}

export function hasGroup(node: Node): boolean {
  switch (node.t) {
    case 'group': return true;
    case 'cat': case 'alt': return node.items.some(hasGroup);
    case 'repeat': case 'look': return hasGroup(node.body);
    default: return false;
  }
}

/** Code points a match can start with, or null when it can start with anything (or be empty). */
export function firstTest(node: Node): CpTest | null {
  const tests: CpTest[] = [];
  const nullable = collectFirst(node, tests);
  if (nullable) return null;
  return tests.length === 1 ? tests[0]! : (cp) => tests.some((t) => t(cp));
}

/** Pushes the tests of the first consumed code point; returns whether the node can match without consuming. */
function collectFirst(node: Node, out: CpTest[]): boolean {
  switch (node.t) {
    case 'empty': case 'assert': case 'look': case 'backref': return true;
    case 'char': { const c = node.cp; out.push((cp) => cp === c); return false; }
    case 'set': out.push(node.test); return false;
    case 'group': return collectFirst(node.body, out);
    case 'repeat': return collectFirst(node.body, out) || node.min === 0;
    case 'alt': return node.items.map((item) => collectFirst(item, out)).some(Boolean);
    case 'cat':
      for (const item of node.items) if (!collectFirst(item, out)) return false;
      return true;
  }
}

/**
 * L when the whole pattern is `(?=[\s\S]*?L)` (or greedy, or `.`) with L a literal: "L occurs at or after here",
 * the idiom for a region that may only open if its close will come (TRL's Nemotron 3 reasoning). Searched with
 * indexOf, and resumably across chunks, instead of rescanning the held text from every start on every chunk.
 */
export function lookaheadLiteral(root: Node): string | null {
  if (root.t !== 'look' || !root.ahead || root.neg || root.body.t !== 'cat') return null;
  const [star, ...rest] = root.body.items;
  if (!star || star.t !== 'repeat' || star.min !== 0 || star.max !== Infinity || star.body.t !== 'set' || star.body.test !== ANY) return null;
  if (rest.length === 0 || !rest.every((item) => item.t === 'char')) return null;
  return String.fromCodePoint(...rest.map((item) => (item as { cp: number }).cp));
}

/**
 * Just enough of a Python regex parser to read the structure of a legacy `response_schema`'s `x-regex`: literal
 * characters, groups (named, capturing, non-capturing, lookarounds), alternation and quantifiers. Everything else is
 * kept as source text. Linear in the pattern's length; patterns are schema text, never model output.
 */

export type RegexNode =
  | { t: 'char'; text: string }
  | { t: 'other'; src: string }
  | { t: 'group'; kind: 'capture' | 'named' | 'plain' | 'ahead' | 'not-ahead' | 'behind' | 'not-behind'; name?: string; alts: RegexNode[][] }
  | { t: 'quant'; node: RegexNode; q: string };

export class RegexShapeError extends Error {}

const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B', 'A', 'Z']);
const CONTROL_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v' };

export function parseRegex(pattern: string): RegexNode[][] {
  let at = 0;
  const alternation = (depth: number): RegexNode[][] => {
    const alts: RegexNode[][] = [[]];
    while (at < pattern.length) {
      const c = pattern[at]!;
      if (c === ')') {
        if (depth === 0) throw new RegexShapeError(`unbalanced ")" at ${at}`);
        return alts;
      }
      if (c === '|') {
        at++;
        alts.push([]);
        continue;
      }
      const atom = readAtom(depth);
      const quant = readQuantifier();
      alts[alts.length - 1]!.push(quant ? { t: 'quant', node: atom, q: quant } : atom);
    }
    if (depth > 0) throw new RegexShapeError('unclosed "("');
    return alts;
  };
  const readAtom = (depth: number): RegexNode => {
    const c = pattern[at]!;
    if (c === '\\') {
      const next = pattern[at + 1];
      if (next === undefined) throw new RegexShapeError('pattern ends with "\\"');
      at += 2;
      const width = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
      if (width > 0) {
        const hex = pattern.slice(at, at + width);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) throw new RegexShapeError(`bad escape "\\${next}${hex}"`);
        at += width;
        return { t: 'char', text: String.fromCodePoint(parseInt(hex, 16)) };
      }
      if (CLASS_ESCAPES.has(next) || /[0-9]/.test(next)) return { t: 'other', src: `\\${next}` };
      return { t: 'char', text: CONTROL_ESCAPES[next] ?? next };
    }
    if (c === '[') {
      const start = at;
      at++;
      if (pattern[at] === '^') at++;
      if (pattern[at] === ']') at++;
      while (at < pattern.length && pattern[at] !== ']') at += pattern[at] === '\\' ? 2 : 1;
      if (at >= pattern.length) throw new RegexShapeError('unclosed "["');
      at++;
      return { t: 'other', src: pattern.slice(start, at) };
    }
    if (c === '(') return readGroup(depth);
    at++;
    if (c === '.' || c === '^' || c === '$') return { t: 'other', src: c };
    return { t: 'char', text: c };
  };
  const readGroup = (depth: number): RegexNode => {
    at++;
    let kind: Extract<RegexNode, { t: 'group' }>['kind'] = 'capture';
    let name: string | undefined;
    if (pattern[at] === '?') {
      const rest = pattern.slice(at, at + 4);
      const named = /^\?P?<([A-Za-z_]\w*)>/.exec(pattern.slice(at, at + 200));
      if (named) {
        kind = 'named';
        name = named[1];
        at += named[0].length;
      } else if (rest.startsWith('?:')) [kind, at] = ['plain', at + 2];
      else if (rest.startsWith('?=')) [kind, at] = ['ahead', at + 2];
      else if (rest.startsWith('?!')) [kind, at] = ['not-ahead', at + 2];
      else if (rest.startsWith('?<=')) [kind, at] = ['behind', at + 3];
      else if (rest.startsWith('?<!')) [kind, at] = ['not-behind', at + 3];
      else throw new RegexShapeError(`unsupported group "(${rest}…"`);
    }
    const alts = alternation(depth + 1);
    at++;
    return { t: 'group', kind, ...(name !== undefined ? { name } : {}), alts };
  };
  const readQuantifier = (): string | undefined => {
    const c = pattern[at];
    let q: string | undefined;
    if (c === '*' || c === '+' || c === '?') q = c;
    else if (c === '{') {
      const m = /^\{\d*(?:,\d*)?\}/.exec(pattern.slice(at, at + 40));
      if (m) q = m[0];
    }
    if (q === undefined) return undefined;
    at += q.length;
    if (pattern[at] === '?') {
      q += '?';
      at++;
    }
    return q;
  };
  return alternation(0);
}

const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/** Back to a pattern, literals escaped only where regex syntax needs it (Python and JavaScript read it alike). */
export function toSource(nodes: readonly RegexNode[]): string {
  return nodes.map(nodeSource).join('');
}

function nodeSource(node: RegexNode): string {
  switch (node.t) {
    case 'char':
      if (node.text === '\n') return '\\n';
      if (node.text === '\t') return '\\t';
      if (node.text === '\r') return '\\r';
      return SYNTAX.has(node.text) ? `\\${node.text}` : node.text;
    case 'other':
      return node.src;
    case 'quant':
      return nodeSource(node.node) + node.q;
    case 'group': {
      const head = { capture: '(', named: `(?P<${node.name}>`, plain: '(?:', ahead: '(?=', 'not-ahead': '(?!', behind: '(?<=', 'not-behind': '(?<!' }[node.kind];
      return `${head}${node.alts.map(toSource).join('|')})`;
    }
  }
}

/** The text of a sequence made only of literal characters, else undefined. */
export function literalOf(nodes: readonly RegexNode[]): string | undefined {
  let text = '';
  for (const node of nodes) {
    if (node.t !== 'char') return undefined;
    text += node.text;
  }
  return text;
}

export function containsNamed(node: RegexNode, name: string): boolean {
  if (node.t === 'quant') return containsNamed(node.node, name);
  if (node.t !== 'group') return false;
  if (node.kind === 'named' && node.name === name) return true;
  return node.alts.some((alt) => alt.some((child) => containsNamed(child, name)));
}

/** Every literal alternative reachable through groups (`(?:<|im_end|>|$)` → `<|im_end|>`). */
export function literalAlternatives(node: RegexNode, into: string[]): void {
  const inner = node.t === 'quant' ? node.node : node;
  if (inner.t !== 'group' || inner.kind === 'not-ahead' || inner.kind === 'not-behind') return;
  for (const alt of inner.alts) {
    const text = literalOf(alt);
    if (text !== undefined && text.length > 0) into.push(text);
    else if (alt.length === 1) literalAlternatives(alt[0]!, into);
  }
}

/** Literals a negative lookahead inside the node refuses (`(?!<tool_call>)`): where a region must stop. */
export function refusedLiterals(node: RegexNode, into: string[]): void {
  if (node.t === 'quant') return refusedLiterals(node.node, into);
  if (node.t !== 'group') return;
  if (node.kind === 'not-ahead') {
    for (const alt of node.alts) {
      const text = literalOf(alt);
      if (text) into.push(text);
    }
    return;
  }
  for (const alt of node.alts) for (const child of alt) refusedLiterals(child, into);
}

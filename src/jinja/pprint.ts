// jinja2's pprint filter: Python's pprint.pformat(value) with its defaults (width 80, one space of indent per level,
// dict keys sorted). What fits on the rest of a line is the one-line repr; a dict, list, tuple or str that does not
// is broken one item (or one run of words) per line.
import { chargeChars } from './budget.js';
import { PyError } from './errors.js';
import { pySplitlines } from './methods.js';
import { pyCompare } from './ops.js';
import { pyRepr } from './repr.js';
import { dictEntries, isDict, isTuple, makeTuple, pyTypeName, strLength } from './values.js';

const WIDTH = 80;

/** pprint's _safe_key order: natural where Python can compare, else by the type's name ("<class 'int'>"). */
function safeCompare(a: unknown, b: unknown): number {
  try {
    const order = pyCompare(a, b);
    return Number.isNaN(order) ? 0 : order;
  } catch (error) {
    if (!(error instanceof PyError) || error.pyType !== 'TypeError') throw error;
    const x = `<class '${pyTypeName(a)}'>`;
    const y = `<class '${pyTypeName(b)}'>`;
    return x < y ? -1 : x > y ? 1 : 0;
  }
}

/** The value with every dict's keys in pprint's order (a Map keeps them so), shared parts copied once. */
function sortedCopy(value: unknown, copies: Map<unknown, unknown>): unknown {
  if (!Array.isArray(value) && !isDict(value)) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] = isTuple(value) ? makeTuple([]) : [];
    copies.set(value, copy);
    for (const item of value) copy.push(sortedCopy(item, copies));
    return copy;
  }
  const copy = new Map<unknown, unknown>();
  copies.set(value, copy);
  const entries = dictEntries(value).sort((x, y) => safeCompare(x[0], y[0]));
  for (const [key, item] of entries) copy.set(key, sortedCopy(item, copies));
  return copy;
}

class PrettyPrinter {
  readonly out: string[] = [];

  private write(text: string): void {
    this.out.push(text);
  }

  private newline(indent: number): string {
    chargeChars(indent + 2);
    return `,\n${' '.repeat(indent)}`;
  }

  format(value: unknown, indent: number, allowance: number, level: number): void {
    const rep = pyRepr(value);
    if (strLength(rep) > WIDTH - indent - allowance) {
      if (isDict(value)) return this.dict(value, indent, allowance, level + 1);
      if (Array.isArray(value)) return this.items(value, indent, allowance, level + 1);
      if (typeof value === 'string') return this.str(value, indent, allowance, level + 1);
    }
    this.write(rep);
  }

  private dict(value: Parameters<typeof dictEntries>[0], indent: number, allowance: number, level: number): void {
    this.write('{');
    const entries = dictEntries(value);
    const inner = indent + 1;
    const delimiter = this.newline(inner);
    entries.forEach(([key, item], i) => {
      const last = i === entries.length - 1;
      const rep = pyRepr(key);
      this.write(`${rep}: `);
      this.format(item, inner + strLength(rep) + 2, last ? allowance + 1 : 1, level);
      if (!last) this.write(delimiter);
    });
    this.write('}');
  }

  private items(value: unknown[], indent: number, allowance: number, level: number): void {
    const tuple = isTuple(value);
    const end = !tuple ? ']' : value.length === 1 ? ',)' : ')';
    this.write(tuple ? '(' : '[');
    const inner = indent + 1;
    const delimiter = this.newline(inner);
    value.forEach((item, i) => {
      if (i > 0) this.write(delimiter);
      this.format(item, inner, i === value.length - 1 ? allowance + end.length : 1, level);
    });
    this.write(end);
  }

  /** A long str as adjacent literals, split at line ends and then between words; at the top level in parentheses. */
  private str(value: string, indent: number, allowance: number, level: number): void {
    if (value === '') {
      this.write("''");
      return;
    }
    const lines = pySplitlines(value, true);
    if (level === 1) {
      indent += 1;
      allowance += 1;
    }
    const maxWidth = WIDTH - indent;
    const chunks: string[] = [];
    lines.forEach((line, i) => {
      const lastLine = i === lines.length - 1;
      const rep = pyRepr(line);
      if (strLength(rep) <= maxWidth - (lastLine ? allowance : 0)) {
        chunks.push(rep);
        return;
      }
      const parts = line.match(/\S*\s*/gu)!.slice(0, -1);
      let current = '';
      parts.forEach((part, j) => {
        const candidate = current + part;
        const room = maxWidth - (lastLine && j === parts.length - 1 ? allowance : 0);
        if (strLength(pyRepr(candidate)) > room) {
          if (current !== '') chunks.push(pyRepr(current));
          current = part;
        } else current = candidate;
      });
      if (current !== '') chunks.push(pyRepr(current));
    });
    if (chunks.length === 1) {
      this.write(chunks[0]!);
      return;
    }
    chargeChars(chunks.length * (indent + 1));
    const body = chunks.join(`\n${' '.repeat(indent)}`);
    this.write(level === 1 ? `(${body})` : body);
  }
}

export function pformat(value: unknown): string {
  const printer = new PrettyPrinter();
  printer.format(sortedCopy(value, new Map()), 0, 0, 0);
  return printer.out.join('');
}

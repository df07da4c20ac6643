// A template's parsed form as text: its AST in JSON, made once (at build time for the bundled family templates) so
// a later process rebuilds the closures from it instead of lexing and parsing the source again, which in a fresh
// process runs as cold, unoptimised code. The form holds the source it was made from (compared whole: one native
// string comparison, cheaper than hashing the text in cold code), so a form handed in with another source, or from
// another form version, is ignored, never used.
//
// Reading a form checks every node against the shapes of ast.ts and copies only their known fields: a truncated,
// damaged or foreign form is answered with undefined (the caller parses the source), never a crash or a half-read
// tree. A form that is well-formed and names the right source is trusted as the source itself would be.
import type { CallArgs, Expr, Param, Stmt, Target } from './ast.js';
import { PyFloat } from './values.js';

/** The form's layout: raise it whenever ast.ts's shapes change. */
const FORM_VERSION = 1;
const BIN_OPS = new Set(['+', '-', '*', '/', '//', '%', '**']);
const COMPARE_OPS = new Set(['==', '!=', '<', '>', '<=', '>=', 'in', 'notin']);

/** JSON has no bigint, no float that prints as an integer (1.0), no inf or nan: constants tagged as {$i} or {$f}. */
function encodeConstant(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $i: value.toString() };
  if (value instanceof PyFloat) return { $f: numberText(value.value) };
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) return { $n: numberText(value) };
  return value;
}

function numberText(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

export function encodeParsedForm(source: string, ast: Stmt[]): string {
  return JSON.stringify({ v: FORM_VERSION, source, ast }, encodeConstant);
}

/** Thrown inside the reader only; decodeParsedForm answers undefined for it. */
class BadForm extends Error {}

/** The AST of `form` when it is a well-formed form made from `source`; undefined otherwise. */
export function decodeParsedForm(source: string, form: string): Stmt[] | undefined {
  try {
    const data: unknown = JSON.parse(form);
    if (!isRecord(data) || data.v !== FORM_VERSION || data.source !== source) return undefined;
    return new FormReader(source.length).stmts(data.ast);
  } catch (error) {
    // BadForm, JSON's SyntaxError, or a RangeError from a tree nested past the stack.
    if (error instanceof Error) return undefined;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class FormReader {
  constructor(private readonly sourceLength: number) {}

  stmts(value: unknown): Stmt[] {
    return this.list(value, (item) => this.stmt(item));
  }

  private stmt(value: unknown): Stmt {
    const node = record(value);
    switch (node.k) {
      case 'text':
        return { k: 'text', value: string(node.value) };
      case 'print':
        return { k: 'print', expr: this.expr(node.expr) };
      case 'if':
        return { k: 'if', test: this.expr(node.test), body: this.stmts(node.body), otherwise: this.stmts(node.otherwise) };
      case 'for':
        return {
          k: 'for',
          target: this.target(node.target),
          iter: this.expr(node.iter),
          body: this.stmts(node.body),
          otherwise: this.stmts(node.otherwise),
          test: this.optionalExpr(node.test),
          recursive: boolean(node.recursive),
        };
      case 'set':
        return { k: 'set', target: this.target(node.target), value: this.expr(node.value) };
      case 'setblock':
        return { k: 'setblock', target: this.target(node.target), filter: this.optionalExpr(node.filter), body: this.stmts(node.body) };
      case 'macro':
        return { k: 'macro', name: string(node.name), params: this.params(node.params), body: this.stmts(node.body) };
      case 'callblock':
        return { k: 'callblock', call: this.expr(node.call), params: this.params(node.params), body: this.stmts(node.body) };
      case 'filterblock':
        return { k: 'filterblock', filter: this.expr(node.filter), body: this.stmts(node.body) };
      case 'with':
        return { k: 'with', targets: this.list(node.targets, (t) => this.target(t)), values: this.exprs(node.values), body: this.stmts(node.body) };
      case 'generation':
      case 'scope':
        return { k: node.k, body: this.stmts(node.body) };
      case 'break':
      case 'continue':
        return { k: node.k };
      default:
        throw new BadForm();
    }
  }

  private expr(value: unknown): Expr {
    const node = record(value);
    switch (node.k) {
      case 'const':
        return { k: 'const', value: constant(node.value) };
      case 'name':
        return { k: 'name', name: string(node.name), pos: this.pos(node.pos) };
      case 'list':
      case 'tuple':
        return { k: node.k, items: this.exprs(node.items) };
      case 'dict':
        return { k: 'dict', pairs: this.list(node.pairs, (pair) => this.pair(pair, (key) => this.expr(key))) };
      case 'getattr':
        return { k: 'getattr', obj: this.expr(node.obj), attr: string(node.attr) };
      case 'getitem':
        return { k: 'getitem', obj: this.expr(node.obj), arg: this.expr(node.arg) };
      case 'slice':
        return { k: 'slice', start: this.optionalExpr(node.start), stop: this.optionalExpr(node.stop), step: this.optionalExpr(node.step) };
      case 'call':
        return { k: 'call', fn: this.expr(node.fn), ...this.callArgs(node) };
      case 'filter':
        return { k: 'filter', node: this.optionalExpr(node.node), name: string(node.name), pos: this.pos(node.pos), ...this.callArgs(node) };
      case 'test':
        return { k: 'test', node: this.expr(node.node), name: string(node.name), pos: this.pos(node.pos), ...this.callArgs(node) };
      case 'not':
      case 'neg':
      case 'pos':
        return { k: node.k, node: this.expr(node.node) };
      case 'bin':
        if (!BIN_OPS.has(string(node.op))) throw new BadForm();
        return { k: 'bin', op: node.op as string, left: this.expr(node.left), right: this.expr(node.right) };
      case 'and':
      case 'or':
        return { k: node.k, left: this.expr(node.left), right: this.expr(node.right) };
      case 'concat':
        return { k: 'concat', nodes: this.exprs(node.nodes) };
      case 'compare':
        return {
          k: 'compare',
          first: this.expr(node.first),
          ops: this.list(node.ops, (pair) => this.pair(pair, (op) => (COMPARE_OPS.has(string(op)) ? (op as string) : bad()))),
        };
      case 'cond':
        return { k: 'cond', test: this.expr(node.test), then: this.expr(node.then), otherwise: this.optionalExpr(node.otherwise) };
      default:
        throw new BadForm();
    }
  }

  private callArgs(node: Record<string, unknown>): CallArgs {
    return {
      args: this.exprs(node.args),
      kwargs: this.list(node.kwargs, (pair) => this.pair(pair, string)),
      dynArgs: this.optionalExpr(node.dynArgs),
      dynKwargs: this.optionalExpr(node.dynKwargs),
    };
  }

  private target(value: unknown): Target {
    const node = record(value);
    if (node.k === 'name') return { k: 'name', name: string(node.name) };
    if (node.k === 'tuple') return { k: 'tuple', items: this.list(node.items, (item) => this.target(item)) };
    if (node.k === 'nsref') return { k: 'nsref', name: string(node.name), attr: string(node.attr) };
    throw new BadForm();
  }

  private params(value: unknown): Param[] {
    return this.list(value, (item) => {
      const param = record(item);
      return { name: string(param.name), default: this.optionalExpr(param.default) };
    });
  }

  private pair<K>(value: unknown, first: (value: unknown) => K): [K, Expr] {
    if (!Array.isArray(value) || value.length !== 2) throw new BadForm();
    return [first(value[0]), this.expr(value[1])];
  }

  private exprs(value: unknown): Expr[] {
    return this.list(value, (item) => this.expr(item));
  }

  private optionalExpr(value: unknown): Expr | null {
    return value === null ? null : this.expr(value);
  }

  private list<T>(value: unknown, item: (value: unknown) => T): T[] {
    if (!Array.isArray(value)) throw new BadForm();
    return value.map((element) => item(element));
  }

  /** An offset into the source, which error messages turn into a line: within it, or they would name no line. */
  private pos(value: unknown): number {
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > this.sourceLength) throw new BadForm();
    return value as number;
  }
}

function bad(): never {
  throw new BadForm();
}

function record(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new BadForm();
  return value;
}

function string(value: unknown): string {
  if (typeof value !== 'string') throw new BadForm();
  return value;
}

function boolean(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new BadForm();
  return value;
}

function constant(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const tagged = record(value);
  const keys = Object.keys(tagged);
  if (keys.length !== 1) throw new BadForm();
  const text = string(tagged[keys[0]!]);
  if (keys[0] === '$i' && /^-?\d{1,4300}$/.test(text)) return BigInt(text);
  if (keys[0] === '$f') return new PyFloat(numberFrom(text));
  if (keys[0] === '$n') return numberFrom(text);
  throw new BadForm();
}

function numberFrom(text: string): number {
  if (text === 'NaN') return NaN;
  if (text === '-0') return -0;
  const value = Number(text);
  if (Number.isNaN(value) || text.trim() !== text || text === '') throw new BadForm();
  return value;
}

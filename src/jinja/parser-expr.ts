// Token stream helpers and the expression grammar of jinja2/parser.py (precedence and accepted syntax match jinja2).
import type { CallArgs, Expr } from './ast.js';
import { TemplateSyntaxError } from './errors.js';
import { PyFloat } from './values.js';
import { lineOf, type Token } from './lexer.js';

const COMPARE_OPS = new Set(['==', '!=', '<', '>', '<=', '>=']);
const TEST_ARG_START = new Set(['name', 'string', 'int', 'float']);

export function parseIntLiteral(text: string): number | bigint {
  const clean = text.replace(/_/g, '');
  const big = BigInt(clean);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

export class ExprParser {
  protected i = 0;

  constructor(
    protected readonly tokens: Token[],
    protected readonly source: string,
  ) {}

  protected get tok(): Token {
    return this.tokens[this.i]!;
  }
  protected peek(offset = 1): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }
  protected fail(message: string, token: Token = this.tok): never {
    throw new TemplateSyntaxError(message, lineOf(this.source, token.pos));
  }
  /** jinja2's describe_token, quoted as its messages quote it. */
  protected describe(token: Token): string {
    switch (token.type) {
      case 'eof':
        return "'end of template'";
      case 'block_begin':
        return "'begin of statement block'";
      case 'block_end':
        return "'end of statement block'";
      case 'var_begin':
        return "'begin of print statement'";
      case 'var_end':
        return "'end of print statement'";
      case 'int':
        return "'integer'";
      case 'data':
        return "'template data / text'";
      default:
        return token.type === 'op' || token.type === 'name' ? `'${token.value}'` : `'${token.type}'`;
    }
  }

  // The precedence levels probe the current token many times per expression: one array read, value first.
  protected isOp(value: string): boolean {
    const token = this.tokens[this.i]!;
    return token.value === value && token.type === 'op';
  }
  protected isName(value: string): boolean {
    const token = this.tokens[this.i]!;
    return token.value === value && token.type === 'name';
  }
  protected skipOp(value: string): boolean {
    if (!this.isOp(value)) return false;
    this.i++;
    return true;
  }
  protected skipName(value: string): boolean {
    if (!this.isName(value)) return false;
    this.i++;
    return true;
  }
  protected expectOp(value: string): void {
    if (!this.skipOp(value)) this.fail(`expected token '${value}', got ${this.describe(this.tok)}`);
  }
  protected expectType(type: Token['type'], what: string): Token {
    const token = this.tok;
    if (token.type !== type) this.fail(`expected token '${what}', got ${this.describe(token)}`);
    this.i++;
    return token;
  }
  protected expectName(value?: string): string {
    const token = this.tok;
    if (token.type !== 'name' || (value !== undefined && token.value !== value)) {
      this.fail(`expected token '${value ?? 'name'}', got ${this.describe(token)}`);
    }
    this.i++;
    return token.value;
  }


  // ---- expressions ----
  parseExpression(withCondexpr = true): Expr {
    return withCondexpr ? this.parseCondexpr() : this.parseOr();
  }

  private parseCondexpr(): Expr {
    let expr = this.parseOr();
    while (this.skipName('if')) {
      const test = this.parseOr();
      const otherwise = this.skipName('else') ? this.parseCondexpr() : null;
      expr = { k: 'cond', test, then: expr, otherwise };
    }
    return expr;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.skipName('or')) left = { k: 'or', left, right: this.parseAnd() };
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.skipName('and')) left = { k: 'and', left, right: this.parseNot() };
    return left;
  }

  private parseNot(): Expr {
    if (this.skipName('not')) return { k: 'not', node: this.parseNot() };
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const first = this.parseMath1();
    const ops: Array<[string, Expr]> = [];
    for (;;) {
      const token = this.tok;
      if (token.type === 'op' && COMPARE_OPS.has(token.value)) {
        this.i++;
        ops.push([token.value, this.parseMath1()]);
      } else if (this.skipName('in')) {
        ops.push(['in', this.parseMath1()]);
      } else if (this.isName('not') && this.peek().type === 'name' && this.peek().value === 'in') {
        this.i += 2;
        ops.push(['notin', this.parseMath1()]);
      } else break;
    }
    return ops.length === 0 ? first : { k: 'compare', first, ops };
  }

  private parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.tok.value;
      this.i++;
      left = { k: 'bin', op, left, right: this.parseConcat() };
    }
    return left;
  }

  private parseConcat(): Expr {
    const nodes = [this.parseMath2()];
    while (this.skipOp('~')) nodes.push(this.parseMath2());
    return nodes.length === 1 ? nodes[0]! : { k: 'concat', nodes };
  }

  private parseMath2(): Expr {
    let left = this.parsePow();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const op = this.tok.value;
      this.i++;
      left = { k: 'bin', op, left, right: this.parsePow() };
    }
    return left;
  }

  private parsePow(): Expr {
    let left = this.parseUnary();
    while (this.skipOp('**')) left = { k: 'bin', op: '**', left, right: this.parseUnary() };
    return left;
  }

  private parseUnary(withFilter = true): Expr {
    let node: Expr;
    if (this.skipOp('-')) node = { k: 'neg', node: this.parseUnary(false) };
    else if (this.skipOp('+')) node = { k: 'pos', node: this.parseUnary(false) };
    else node = this.parsePrimary();
    node = this.parsePostfix(node);
    if (withFilter) node = this.parseFilterExpr(node);
    return node;
  }

  private parsePrimary(): Expr {
    const token = this.tok;
    switch (token.type) {
      case 'name': {
        this.i++;
        switch (token.value) {
          case 'true':
          case 'True':
            return { k: 'const', value: true };
          case 'false':
          case 'False':
            return { k: 'const', value: false };
          case 'none':
          case 'None':
            return { k: 'const', value: null };
        }
        return { k: 'name', name: token.value, pos: token.pos };
      }
      case 'string': {
        let value = token.value;
        this.i++;
        while (this.tok.type === 'string') value += this.tokens[this.i++]!.value;
        return { k: 'const', value };
      }
      case 'int':
        this.i++;
        return { k: 'const', value: parseIntLiteral(token.value) };
      case 'float': {
        this.i++;
        const v = Number(token.value.replace(/_/g, ''));
        return { k: 'const', value: Number.isInteger(v) ? new PyFloat(v) : v };
      }
      case 'op':
        if (token.value === '(') {
          this.i++;
          const expr = this.parseTuple(false, true, [], true);
          this.expectOp(')');
          return expr;
        }
        if (token.value === '[') return this.parseList();
        if (token.value === '{') return this.parseDict();
    }
    return this.fail(`unexpected ${this.describe(token)}`);
  }

  /** jinja2 parse_tuple: a comma-separated expression list; a single item without comma is returned as is. */
  parseTuple(simplified = false, withCondexpr = true, extraEnd: string[] = [], explicitParens = false): Expr {
    const items: Expr[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length > 0) this.expectOp(',');
      if (this.isTupleEnd(extraEnd)) break;
      items.push(simplified ? this.parsePrimary() : this.parseExpression(withCondexpr));
      if (this.isOp(',')) isTuple = true;
      else break;
    }
    if (!isTuple) {
      if (items.length > 0) return items[0]!;
      if (!explicitParens) this.fail(`Expected an expression, got ${this.describe(this.tok)}`);
    }
    return { k: 'tuple', items };
  }

  private isTupleEnd(extraEnd: string[]): boolean {
    const token = this.tok;
    if (token.type === 'var_end' || token.type === 'block_end' || token.type === 'eof') return true;
    if (token.type === 'op' && (token.value === ')' || token.value === ']' || token.value === '}')) return true;
    return token.type === 'name' && extraEnd.includes(token.value);
  }

  protected parseList(): Expr {
    this.expectOp('[');
    const items: Expr[] = [];
    while (!this.isOp(']')) {
      if (items.length > 0) this.expectOp(',');
      if (this.isOp(']')) break;
      items.push(this.parseExpression());
    }
    this.expectOp(']');
    return { k: 'list', items };
  }

  private parseDict(): Expr {
    this.expectOp('{');
    const pairs: Array<[Expr, Expr]> = [];
    while (!this.isOp('}')) {
      if (pairs.length > 0) this.expectOp(',');
      if (this.isOp('}')) break;
      const key = this.parseExpression();
      this.expectOp(':');
      pairs.push([key, this.parseExpression()]);
    }
    this.expectOp('}');
    return { k: 'dict', pairs };
  }

  private parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.isOp('.') || this.isOp('[')) node = this.parseSubscript(node);
      else if (this.isOp('(')) node = { k: 'call', fn: node, ...this.parseCallArgs() };
      else return node;
    }
  }

  private parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.isOp('|')) node = this.parseFilter(node, false);
      else if (this.isName('is')) node = this.parseTest(node);
      else if (this.isOp('(')) node = { k: 'call', fn: node, ...this.parseCallArgs() };
      else return node;
    }
  }

  private parseSubscript(node: Expr): Expr {
    const token = this.tok;
    this.i++;
    if (token.value === '.') {
      const attr = this.tok;
      if (attr.type === 'name') {
        this.i++;
        return { k: 'getattr', obj: node, attr: attr.value };
      }
      if (attr.type === 'int') {
        this.i++;
        return { k: 'getitem', obj: node, arg: { k: 'const', value: parseIntLiteral(attr.value) } };
      }
      this.fail('expected name or number');
    }
    const args: Expr[] = [];
    while (!this.isOp(']')) {
      if (args.length > 0) {
        this.expectOp(',');
        if (this.isOp(']')) break;
      }
      args.push(this.parseSubscribed());
    }
    this.expectOp(']');
    const arg = args.length === 1 ? args[0]! : ({ k: 'tuple', items: args } as Expr);
    return { k: 'getitem', obj: node, arg };
  }

  private parseSubscribed(): Expr {
    let start: Expr | null = null;
    if (!this.isOp(':')) {
      start = this.parseExpression();
      if (!this.isOp(':')) return start;
    }
    this.i++;
    let stop: Expr | null = null;
    let step: Expr | null = null;
    if (!this.isOp(']') && !this.isOp(',') && !this.isOp(':')) stop = this.parseExpression();
    if (this.skipOp(':')) {
      if (!this.isOp(']') && !this.isOp(',')) step = this.parseExpression();
    }
    return { k: 'slice', start, stop, step };
  }

  private parseCallArgs(): CallArgs {
    this.expectOp('(');
    const out: CallArgs = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
    // A set, not a search of the keywords so far: a call with 50,000 keywords took seconds to parse.
    const keywords = new Set<string>();
    let first = true;
    while (!this.isOp(')')) {
      if (!first) {
        this.expectOp(',');
        if (this.isOp(')')) break;
      }
      first = false;
      if (this.skipOp('*')) {
        out.dynArgs = this.parseExpression();
      } else if (this.skipOp('**')) {
        out.dynKwargs = this.parseExpression();
      } else if (this.tok.type === 'name' && this.peek().type === 'op' && this.peek().value === '=') {
        const key = this.tok.value;
        // jinja2 compiles the call to Python source, where a repeated keyword is Python's own SyntaxError.
        if (keywords.has(key)) {
          throw new TemplateSyntaxError(`keyword argument repeated: ${key}`, lineOf(this.source, this.tok.pos), 'SyntaxError');
        }
        keywords.add(key);
        this.i += 2;
        out.kwargs.push([key, this.parseExpression()]);
      } else {
        if (out.kwargs.length > 0 || out.dynArgs || out.dynKwargs) this.fail('Invalid argument syntax: positional argument follows keyword argument');
        out.args.push(this.parseExpression());
      }
    }
    this.expectOp(')');
    return out;
  }

  private dottedName(): string {
    let name = this.expectName();
    while (this.isOp('.') && this.peek().type === 'name') {
      this.i++;
      name += '.' + this.expectName();
    }
    return name;
  }

  protected parseFilter(node: Expr | null, startInline: boolean): Expr {
    let result: Expr | null = node;
    while (this.isOp('|') || startInline) {
      if (!startInline) this.i++;
      startInline = false;
      const pos = this.tok.pos;
      const name = this.dottedName();
      const args = this.isOp('(') ? this.parseCallArgs() : { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
      result = { k: 'filter', node: result, name, pos, ...args };
    }
    return result!;
  }

  private parseTest(node: Expr): Expr {
    this.i++; // 'is'
    const negated = this.skipName('not');
    const pos = this.tok.pos;
    const name = this.dottedName();
    let args: CallArgs = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
    if (this.isOp('(')) args = this.parseCallArgs();
    else {
      const token = this.tok;
      const startsArg =
        (TEST_ARG_START.has(token.type) || (token.type === 'op' && (token.value === '(' || token.value === '[' || token.value === '{'))) &&
        !(token.type === 'name' && (token.value === 'else' || token.value === 'or' || token.value === 'and'));
      if (startsArg) {
        if (token.type === 'name' && token.value === 'is') this.fail('You cannot chain multiple tests with is');
        args.args = [this.parsePostfix(this.parsePrimary())];
      }
    }
    const test: Expr = { k: 'test', node, name, pos, ...args };
    return negated ? { k: 'not', node: test } : test;
  }
}

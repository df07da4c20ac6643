// Statement grammar of jinja2/parser.py plus the extensions transformers enables (loop controls, generation).
import type { Expr, Param, Stmt, Target } from './ast.js';
import { TemplateSyntaxError } from './errors.js';
import { lineOf, type Token } from './lexer.js';
import { ExprParser } from './parser-expr.js';

const BLOCK_TAGS = new Set(['for', 'if', 'macro', 'call', 'filter', 'with', 'set', 'generation', 'block']);

function storesLoop(target: Target): boolean {
  return target.k === 'name' ? target.name === 'loop' : target.k === 'tuple' && target.items.some(storesLoop);
}

export class Parser extends ExprParser {
  /** For loops around the statement being parsed, up to the nearest macro: where break and continue may stand. */
  private loopDepth = 0;
  /** For loops around the statement being parsed, macros included: where storing to `loop` is refused. */
  private forDepth = 0;
  private readonly endStack: string[][] = [];
  /** Names of the block statements being parsed, innermost last (for error messages). */
  private readonly tagStack: string[] = [];

  parseTemplate(): Stmt[] {
    const body = this.subparse([]);
    if (this.tok.type !== 'eof') this.fail(`unexpected ${this.describe(this.tok)}`);
    return body;
  }

  /** Parses until a block whose tag name is in endTags (left unconsumed at the tag name) or EOF. */
  private subparse(endTags: string[]): Stmt[] {
    this.endStack.push(endTags);
    try {
      return this.subparseBody(endTags);
    } finally {
      this.endStack.pop();
    }
  }

  /** jinja2's message for a tag it did not expect here. */
  private unknownTag(name: string, token: Token): never {
    const looking = this.endStack.length > 0 ? this.endStack[this.endStack.length - 1]! : [];
    let message = `Encountered unknown tag '${name}'.`;
    if (looking.length > 0) {
      const list = looking.map((t) => `'${t}'`).join(' or ');
      message += this.endStack.some((tags) => tags.includes(name))
        ? ` You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for ${list}.`
        : ` Jinja was looking for the following tags: ${list}.`;
    }
    if (this.tagStack.length > 0) message += ` The innermost block that needs to be closed is '${this.tagStack[this.tagStack.length - 1]}'.`;
    return this.fail(message, token);
  }

  private subparseBody(endTags: string[]): Stmt[] {
    const body: Stmt[] = [];
    for (;;) {
      const token = this.tok;
      if (token.type === 'data') {
        body.push({ k: 'text', value: token.value });
        this.i++;
      } else if (token.type === 'var_begin') {
        this.i++;
        body.push({ k: 'print', expr: this.parseTuple() });
        this.expectType('var_end', 'end of print statement');
      } else if (token.type === 'block_begin') {
        const tag = this.peek();
        if (tag.type === 'name' && endTags.includes(tag.value)) {
          this.i++;
          return body;
        }
        this.i++;
        body.push(this.parseStatement());
      } else if (token.type === 'eof') {
        if (endTags.length > 0) this.fail(`Unexpected end of template. Jinja was looking for the following tags: ${endTags.map((t) => `'${t}'`).join(' or ')}.`);
        return body;
      } else {
        this.fail(`unexpected ${this.describe(token)}`);
      }
    }
  }

  /** Body of a block statement: expects the block end, parses until an end tag, consumes the tag name. */
  private parseStatements(endTags: string[], dropNeedle: boolean): Stmt[] {
    this.skipOp(':');
    this.expectType('block_end', 'end of statement block');
    const body = this.subparse(endTags);
    if (dropNeedle) this.i++;
    return body;
  }

  private endBlock(): void {
    this.expectType('block_end', 'end of statement block');
  }

  private parseStatement(): Stmt {
    const token = this.tok;
    if (token.type !== 'name') this.fail('tag name expected');
    this.i++;
    const isBlock = BLOCK_TAGS.has(token.value);
    if (isBlock) this.tagStack.push(token.value);
    try {
      return this.parseTag(token);
    } finally {
      if (isBlock) this.tagStack.pop();
    }
  }

  private parseTag(token: Token): Stmt {
    switch (token.value) {
      case 'for':
        return this.parseFor();
      case 'if':
        return this.parseIf();
      case 'set':
        return this.parseSet();
      case 'macro':
        return this.parseMacro();
      case 'call':
        return this.parseCallBlock();
      case 'filter': {
        const filter = this.parseFilter(null, true);
        const body = this.parseStatements(['endfilter'], true);
        this.endBlock();
        return { k: 'filterblock', filter, body };
      }
      case 'with': {
        const targets: Target[] = [];
        const values: Expr[] = [];
        while (this.tok.type !== 'block_end') {
          if (targets.length > 0) this.expectOp(',');
          targets.push(this.parseAssignTarget(false));
          this.expectOp('=');
          values.push(this.parseExpression());
        }
        const body = this.parseStatements(['endwith'], true);
        this.endBlock();
        return { k: 'with', targets, values, body };
      }
      case 'generation': {
        const body = this.parseStatements(['endgeneration'], true);
        this.endBlock();
        return { k: 'generation', body };
      }
      case 'block': {
        this.expectName();
        this.skipName('scoped');
        this.skipName('required');
        const body = this.parseStatements(['endblock'], true);
        if (this.tok.type === 'name') this.i++;
        this.endBlock();
        return { k: 'scope', body };
      }
      case 'print': {
        const expr = this.parseTuple();
        this.endBlock();
        return { k: 'print', expr };
      }
      case 'break':
      case 'continue':
        // jinja2 compiles this to Python, whose compiler rejects it.
        if (this.loopDepth === 0) throw new TemplateSyntaxError(`'${token.value}' outside loop`, lineOf(this.source, token.pos), 'SyntaxError');
        this.endBlock();
        return { k: token.value };
      default:
        return this.unknownTag(token.value, token);
    }
  }

  private parseFor(): Stmt {
    const targetToken = this.tok;
    const target = this.parseAssignTarget(false, ['in']);
    this.refuseLoopTarget(target, targetToken);
    this.expectName('in');
    const iter = this.parseTuple(false, false, ['recursive']);
    const test = this.skipName('if') ? this.parseExpression() : null;
    const recursive = this.skipName('recursive');
    this.loopDepth++;
    this.forDepth++;
    const body = this.parseStatements(['endfor', 'else'], false);
    this.loopDepth--;
    let otherwise: Stmt[] = [];
    if (this.tok.value === 'endfor') this.i++;
    else {
      this.i++;
      otherwise = this.parseStatements(['endfor'], true);
    }
    this.forDepth--;
    this.endBlock();
    return { k: 'for', target, iter, body, otherwise, test, recursive };
  }

  private parseIf(): Stmt {
    const test = this.parseTuple(false, false);
    const body = this.parseStatements(['elif', 'else', 'endif'], false);
    const tag = this.tok.value;
    this.i++;
    let otherwise: Stmt[] = [];
    if (tag === 'elif') otherwise = [this.parseIf()];
    else {
      if (tag === 'else') otherwise = this.parseStatements(['endif'], true);
      this.endBlock();
    }
    return { k: 'if', test, body, otherwise };
  }

  /**
   * jinja2 refuses to compile a for loop that stores to the name `loop` anywhere inside it (its target, a `set` in its
   * body or else branch, even in a macro defined there); `with` and macro parameters bind, they do not store.
   */
  private refuseLoopTarget(target: Target, token: Token): void {
    if (storesLoop(target)) {
      throw new TemplateSyntaxError("Can't assign to special loop variable in for-loop target", lineOf(this.source, token.pos), 'TemplateAssertionError');
    }
  }

  private parseSet(): Stmt {
    const targetToken = this.tok;
    const target = this.parseAssignTarget(true);
    if (this.forDepth > 0) this.refuseLoopTarget(target, targetToken);
    if (this.skipOp('=')) {
      const value = this.parseTuple();
      this.endBlock();
      return { k: 'set', target, value };
    }
    const filter = this.isOp('|') ? this.parseFilter(null, false) : null;
    const body = this.parseStatements(['endset'], true);
    this.endBlock();
    return { k: 'setblock', target, filter, body };
  }

  private parseMacro(): Stmt {
    const name = this.expectName();
    const params = this.parseSignature();
    const outerLoops = this.loopDepth;
    this.loopDepth = 0; // break/continue cannot cross a macro boundary
    const body = this.parseStatements(['endmacro'], true);
    this.loopDepth = outerLoops;
    if (this.tok.type === 'name') this.i++;
    this.endBlock();
    return { k: 'macro', name, params, body };
  }

  private parseCallBlock(): Stmt {
    const params = this.isOp('(') ? this.parseSignature() : [];
    const call = this.parseExpression();
    if (call.k !== 'call') this.fail('expected call');
    const body = this.parseStatements(['endcall'], true);
    this.endBlock();
    return { k: 'callblock', call, params, body };
  }

  private parseSignature(): Param[] {
    const params: Param[] = [];
    let defaulted = false;
    this.expectOp('(');
    while (!this.isOp(')')) {
      if (params.length > 0) this.expectOp(',');
      const name = this.expectName();
      const def = this.skipOp('=') ? this.parseExpression() : null;
      if (def === null && defaulted) this.fail('non-default argument follows default argument');
      defaulted ||= def !== null;
      params.push({ name, default: def });
    }
    this.expectOp(')');
    return params;
  }

  private parseAssignTarget(withNamespace: boolean, endNames: string[] = []): Target {
    if (withNamespace && this.tok.type === 'name' && this.peek().type === 'op' && this.peek().value === '.') {
      const name = this.expectName();
      this.i++;
      const attr = this.expectName();
      return { k: 'nsref', name, attr };
    }
    const items: Target[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length > 0) {
        if (!this.skipOp(',')) break;
        isTuple = true;
      }
      if (this.tok.type === 'name' && endNames.includes(this.tok.value)) break;
      if (this.isOp('=')) break;
      if (items.length === 0 && (this.tok.type === 'block_end' || this.tok.type === 'eof')) {
        this.fail(`Expected an expression, got ${this.describe(this.tok)}`);
      }
      if (this.skipOp('(')) {
        items.push(this.parseAssignTarget(false, [')']));
        this.expectOp(')');
      } else {
        items.push({ k: 'name', name: this.expectName() });
      }
    }
    if (items.length === 0) this.fail("can't assign to nothing");
    return isTuple ? { k: 'tuple', items } : items[0]!;
  }

  // ---- expressions ----

}

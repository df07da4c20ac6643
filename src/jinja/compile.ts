// AST → closures, built once per template: statements (expressions in compile-expr.ts, calls in compile-calls.ts).
import type { Expr, Param, Stmt, Target } from './ast.js';
import { PyError, typeError } from './errors.js';
import { callValue, iterate } from './ops.js';
import { RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { Callable, KEYWORD_ORDER, Namespace } from './values.js';
import { assignsInScope, capture, emit, definesClosures, hasGeneration, mentionedNames, runBody, usesName, type Assign, type Ex } from './compile-support.js';
import { Reuse } from './reuse.js';
import { forLoop } from './compile-loop.js';
import { ifStatement } from './compile-if.js';
import { printSum } from './compile-fused.js';
import { macroBuilder } from './compile-macro.js';
import { ExprCompiler, isPrintedConstantSlice, undefinedOnTypeError } from './compile-expr.js';
import { ifSwitch } from './compile-shapes.js';

export class Compiler extends ExprCompiler {
  /** > 0 while compiling a loop's or a macro's body: only top-level loops are reusable (reuse.ts). */
  private nested = 0;

  body(stmts: Stmt[]): Ex[] {
    const out: Ex[] = [];
    let text = '';
    for (const stmt of stmts) {
      if (stmt.k === 'text') {
        text += stmt.value;
        continue;
      }
      // `{{ 'literal' }}` prints its own text: it joins the text around it.
      if (stmt.k === 'print' && stmt.expr.k === 'const' && typeof stmt.expr.value === 'string') {
        text += stmt.expr.value;
        continue;
      }
      if (text) out.push(this.text(text));
      text = '';
      out.push(this.stmt(stmt));
    }
    if (text) out.push(this.text(text));
    return out;
  }

  private text(value: string): Ex {
    return (s) => {
      s.out += value;
      if (s.out.length > s.limits.outputChars) s.checkOutput();
      return 0;
    };
  }

  private stmt(stmt: Stmt): Ex {
    switch (stmt.k) {
      case 'text':
        return this.text(stmt.value);
      case 'print': {
        const terms = this.plusTerms(stmt.expr);
        if (terms !== null) return printSum(terms);
        const value = this.expr(stmt.expr);
        const e = isPrintedConstantSlice(stmt.expr) ? undefinedOnTypeError(value) : value;
        return (s, f) => {
          emit(s, e(s, f));
          return 0;
        };
      }
      case 'if': {
        const chain = this.withSoft(true, () => ifSwitch(stmt, { expr: (e) => this.expr(e), block: (b) => block(this.body(b)) }));
        if (chain !== null) return chain;
        const [condition, body, otherwise] = this.withSoft(true, () => [
          this.condition(stmt.test), block(this.body(stmt.body)), block(this.body(stmt.otherwise)),
        ] as const);
        return ifStatement(condition, body, otherwise === NOTHING ? null : otherwise);
      }
      case 'for':
        return this.forLoop(stmt);
      case 'set': {
        const value = this.expr(stmt.value);
        const assign = this.assign(stmt.target);
        return (s, f) => {
          assign(f, value(s, f));
          return 0;
        };
      }
      case 'setblock': {
        const body = this.withSoft(false, () => this.body(stmt.body));
        const assign = this.assign(stmt.target);
        const filter = stmt.filter ? this.withSoft(false, () => this.filterChain(stmt.filter!)) : null;
        // jinja2 runs a set block's body in a scope of its own: what it sets stays inside.
        return (s, f) => {
          const text = capture(body, s, f.child());
          assign(f, filter ? filter(s, f, text) : text);
          return 0;
        };
      }
      case 'macro': {
        const macro = this.macro(stmt.name, stmt.params, stmt.body, true);
        const name = stmt.name;
        const slot = this.slots.slot(name);
        return (s, f) => {
          f.set(name, macro(s, f), slot);
          return 0;
        };
      }
      case 'callblock':
        return this.callBlock(stmt);
      case 'filterblock': {
        const body = this.withSoft(false, () => this.body(stmt.body));
        const filter = this.withSoft(false, () => this.filterChain(stmt.filter));
        return (s, f) => {
          emit(s, filter(s, f, capture(body, s, f.child())));
          return 0;
        };
      }
      case 'with': {
        const assigns = stmt.targets.map((t) => this.assign(t));
        const values = stmt.values.map((v) => this.expr(v));
        const body = this.withSoft(false, () => this.body(stmt.body));
        return (s, f) => {
          const inner = f.child();
          for (let i = 0; i < values.length; i++) assigns[i]!(inner, values[i]!(s, inner));
          return runBody(body, s, inner);
        };
      }
      case 'generation': {
        const body = this.withSoft(false, () => this.body(stmt.body));
        // transformers' tag is a call block: its body runs as a caller, in a scope of its own.
        return (s, f) => {
          if (s.capture > 0) return runBody(body, s, f.child());
          const start = s.out.length;
          const r = runBody(body, s, f.child());
          s.addSpan(start, s.out.length);
          return r;
        };
      }
      case 'scope': {
        const body = this.body(stmt.body);
        return (s, f) => runBody(body, s, f.child());
      }
      case 'break':
        return () => 1;
      case 'continue':
        return () => 2;
    }
  }

  private assign(target: Target): Assign {
    switch (target.k) {
      case 'name': {
        const name = target.name;
        const slot = this.slots.slot(name);
        return (f, v) => f.set(name, v, slot);
      }
      case 'nsref': {
        const { name, attr } = target;
        const slot = this.slots.slot(name);
        return (f, v) => {
          const ns = f.get(name, slot);
          if (!(ns instanceof Namespace)) throw new PyError('TemplateRuntimeError', 'cannot assign attribute on non-namespace object');
          ns.attrs.set(attr, v);
        };
      }
      case 'tuple': {
        const parts = target.items.map((t) => this.assign(t));
        return (f, v) => {
          const items = iterate(v);
          if (items.length < parts.length) throw new PyError('ValueError', `not enough values to unpack (expected ${parts.length}, got ${items.length})`);
          if (items.length > parts.length) throw new PyError('ValueError', `too many values to unpack (expected ${parts.length})`);
          for (let i = 0; i < parts.length; i++) parts[i]!(f, items[i]);
        };
      }
    }
  }

  private forLoop(stmt: Extract<Stmt, { k: 'for' }>): Ex {
    const iter = this.expr(stmt.iter);
    const assign = this.assign(stmt.target);
    const reuse = this.nested === 0 && !stmt.recursive && !hasGeneration([stmt]) ? this.loopReuse(stmt) : null;
    const [test, body, otherwise] = this.inside(() => this.withSoft(false, () => [
      stmt.test ? this.expr(stmt.test) : null, block(this.body(stmt.body)), this.body(stmt.otherwise),
    ] as const));
    return forLoop({
      iter, assign, test, body, otherwise, reuse,
      usesLoop: usesName(stmt.body, 'loop') || stmt.recursive,
      recursive: stmt.recursive,
      bodyAssigns: assignsInScope(stmt.body),
      bodyCapturesScope: definesClosures(stmt.body),
    });
  }

  /**
   * What a top-level loop reads besides the list it walks: every name its body and inline test mention except its
   * targets and `loop` (bound in each iteration before either runs), and every name its else branch mentions.
   */
  private loopReuse(stmt: Extract<Stmt, { k: 'for' }>): Reuse {
    const bound = mentionedNames(stmt.target);
    bound.add('loop');
    const names = [...mentionedNames([stmt.body, stmt.test])].filter((name) => !bound.has(name));
    for (const name of mentionedNames(stmt.otherwise)) if (!names.includes(name)) names.push(name);
    return this.reuseOf(names);
  }

  /**
   * What a macro reads besides its arguments: every name its body mentions except its parameters and the names a
   * call binds (caller, varargs, kwargs), and every name a default mentions (a default may read a later parameter's
   * name before it is bound, from outside).
   */
  private macroReuse(params: Param[], stmts: Stmt[]): Reuse {
    const bound = new Set(['caller', 'varargs', 'kwargs', ...params.map((p) => p.name)]);
    const names = [...mentionedNames(stmts)].filter((name) => !bound.has(name));
    for (const name of mentionedNames(params.map((p) => p.default))) if (!names.includes(name)) names.push(name);
    return this.reuseOf(names);
  }

  private reuseOf(names: string[]): Reuse {
    return new Reuse(names, names.map((name) => this.slots.slot(name)));
  }

  private inside<T>(build: () => T): T {
    this.nested++;
    try {
      return build();
    } finally {
      this.nested--;
    }
  }

  /** Builds the Callable for a macro (or a caller block) closing over the defining frame. */
  private macro(name: string, params: Param[], stmts: Stmt[], reusable: boolean): (s: RenderState, f: Frame) => Callable {
    const [body, defaults] = this.inside(() => this.withSoft(false, () => [
      this.body(stmts), params.map((p) => (p.default ? this.expr(p.default) : null)),
    ] as const));
    return macroBuilder({
      name, body, defaults,
      reuse: reusable ? this.macroReuse(params, stmts) : null,
      names: params.map((p) => p.name),
      usesVarargs: usesName(stmts, 'varargs'),
      usesKwargs: usesName(stmts, 'kwargs'),
      usesCaller: usesName(stmts, 'caller'),
    });
  }

  private callBlock(stmt: Extract<Stmt, { k: 'callblock' }>): Ex {
    // A caller block closes over the call site's scope and runs from inside the macro: not reusable on its own.
    const caller = this.macro('caller', stmt.params, stmt.body, false);
    const call = stmt.call as Extract<Expr, { k: 'call' }>;
    const fn = this.expr(call.fn);
    const { positional: args, keywords } = this.callArgs(call);
    return (s, f) => {
      const positional = args(s, f);
      const kwargs = keywords === null ? null : keywords(s, f);
      const kw: Record<string, unknown> = kwargs ?? Object.create(null);
      kw.caller = caller(s, f);
      (kw as { [KEYWORD_ORDER]?: string[] })[KEYWORD_ORDER]?.push('caller');
      const callee = fn(s, f);
      // jinja2 passes `caller=` as a keyword: a builtin refuses it, and a dict or namespace it builds is no output.
      if (callee instanceof Callable && callee.kind !== 'Macro') throw typeError(`${callee.name}() got an unexpected keyword argument 'caller'`);
      emit(s, callValue(callee, positional, kw));
      return 0;
    };
  }

  /** A filter expression whose innermost operand is supplied at run time (filter blocks, set blocks). */
}

export { runBody };

const NOTHING: Ex = () => 0;

/** One closure for a statement list: no wrapper for the common empty and single-statement bodies. */
function block(body: Ex[]): Ex {
  if (body.length === 0) return NOTHING;
  if (body.length === 1) return body[0]!;
  if (body.length === 2) {
    const [first, second] = body as [Ex, Ex];
    return (s, f) => {
      const r = first(s, f);
      return r !== 0 ? r : second(s, f);
    };
  }
  if (body.length === 3) {
    const [first, second, third] = body as [Ex, Ex, Ex];
    return (s, f) => {
      let r = first(s, f);
      if (r !== 0) return r;
      r = second(s, f);
      return r !== 0 ? r : third(s, f);
    };
  }
  return (s, f) => runBody(body, s, f);
}


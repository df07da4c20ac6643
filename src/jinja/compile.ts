// AST → closures, built once per template.
import type { CallArgs, Expr, Param, Stmt, Target } from './ast.js';
import { chargeChars } from './budget.js';
import { PyError, TemplateSyntaxError, typeError } from './errors.js';
import { FILTERS, hasFilter, type FilterFn } from './filters.js';
import { unmark } from './markup.js';
import { methodImpl } from './methods.js';
import { negate } from './numbers.js';
import {
  SliceValue, attrPresence, attrReader, callValue, compareOp, concatStr, getAttr, getItem, itemReader, iterate, pyEq, undefinedError,
} from './ops.js';
import { pyStr } from './repr.js';
import { Frame, RenderState } from './runtime.js';
import { TESTS, hasTest, type TestFn } from './tests.js';
import { Callable, Namespace, Undefined, buildDict, dictEntries, isDict, isNumeric, makeTuple, pyTypeName, truthy } from './values.js';
import {
  assignsInScope, scopedNames, capture, definesClosures, invoke, runBody, usesName, type Assign, type Ev, type Ex, type Kwargs,
} from './compile-support.js';
import { forLoop } from './compile-loop.js';
import { macroBuilder } from './compile-macro.js';
import { arithmetic, plusChain } from './compile-fused.js';

export class Compiler {
  /**
   * True while compiling an if statement or a conditional expression (jinja2's "soft frame"): an unknown filter or
   * test there raises only when reached. Loop, macro, call, set and filter block bodies start a hard frame again.
   */
  private soft = false;
  /** The names read through the scope chain (see scopedNames); any other name is read from the root scope. */
  private readonly bound: Set<string>;

  constructor(
    private readonly source: string,
    template: Stmt[],
  ) {
    this.bound = scopedNames(template);
  }

  private withSoft<T>(soft: boolean, build: () => T): T {
    const saved = this.soft;
    this.soft = soft;
    try {
      return build();
    } finally {
      this.soft = saved;
    }
  }

  /** An unknown filter or test: a compile error, or in a soft frame an error when (if ever) it runs. */
  private missing(kind: 'filter' | 'test', node: { name: string; pos: number }): (...evaluatedArgs: unknown[]) => never {
    if (!this.soft) this.fail(`No ${kind} named '${node.name}'.`, node.pos, 'TemplateAssertionError');
    const message = `No ${kind} named '${node.name}' found.`;
    return () => {
      throw new PyError('TemplateRuntimeError', message);
    };
  }

  private fail(message: string, pos: number, pyType: string): never {
    let line = 1;
    for (let i = 0; i < pos && i < this.source.length; i++) if (this.source.charCodeAt(i) === 10) line++;
    throw new TemplateSyntaxError(message, line, pyType);
  }

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
        const e = this.expr(stmt.expr);
        return (s, f) => {
          const v = e(s, f);
          s.out += typeof v === 'string' ? v : pyStr(v);
          if (s.out.length > s.limits.outputChars) s.checkOutput();
          return 0;
        };
      }
      case 'if': {
        const [test, body, otherwise] = this.withSoft(true, () => [
          this.expr(stmt.test), block(this.body(stmt.body)), block(this.body(stmt.otherwise)),
        ] as const);
        return (s, f) => {
          const v = test(s, f);
          return v === true || (v !== false && truthy(v)) ? body(s, f) : otherwise(s, f);
        };
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
        return (s, f) => {
          const text = capture(body, s, f);
          assign(f, filter ? filter(s, f, text) : text);
          return 0;
        };
      }
      case 'macro': {
        const macro = this.macro(stmt.name, stmt.params, stmt.body);
        const name = stmt.name;
        return (s, f) => {
          f.set(name, macro(s, f));
          return 0;
        };
      }
      case 'callblock':
        return this.callBlock(stmt);
      case 'filterblock': {
        const body = this.withSoft(false, () => this.body(stmt.body));
        const filter = this.withSoft(false, () => this.filterChain(stmt.filter));
        return (s, f) => {
          const v = filter(s, f, capture(body, s, f));
          s.out += typeof v === 'string' ? v : pyStr(v);
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
        return (s, f) => {
          if (s.capture > 0) return runBody(body, s, f);
          const start = s.out.length;
          const r = runBody(body, s, f);
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
        return (f, v) => f.set(name, v);
      }
      case 'nsref': {
        const { name, attr } = target;
        return (f, v) => {
          const ns = f.get(name);
          if (!(ns instanceof Namespace)) throw new PyError('TemplateRuntimeError', 'cannot assign attribute on non-namespace object');
          ns.attrs[attr] = v;
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
    const [test, body, otherwise] = this.withSoft(false, () => [
      stmt.test ? this.expr(stmt.test) : null, block(this.body(stmt.body)), this.body(stmt.otherwise),
    ] as const);
    return forLoop({
      iter, assign, test, body, otherwise,
      usesLoop: usesName(stmt.body, 'loop') || stmt.recursive,
      recursive: stmt.recursive,
      bodyAssigns: assignsInScope(stmt.body),
      bodyCapturesScope: definesClosures(stmt.body),
    });
  }

  /** Builds the Callable for a macro (or a caller block) closing over the defining frame. */
  private macro(name: string, params: Param[], stmts: Stmt[]): (s: RenderState, f: Frame) => Callable {
    const [body, defaults] = this.withSoft(false, () => [
      this.body(stmts), params.map((p) => (p.default ? this.expr(p.default) : null)),
    ] as const);
    return macroBuilder({
      name, body, defaults,
      names: params.map((p) => p.name),
      usesVarargs: usesName(stmts, 'varargs'),
      usesKwargs: usesName(stmts, 'kwargs'),
      usesCaller: usesName(stmts, 'caller'),
    });
  }

  private callBlock(stmt: Extract<Stmt, { k: 'callblock' }>): Ex {
    const caller = this.macro('caller', stmt.params, stmt.body);
    const call = stmt.call as Extract<Expr, { k: 'call' }>;
    const fn = this.expr(call.fn);
    const { positional: args, keywords } = this.callArgs(call);
    return (s, f) => {
      const positional = args(s, f);
      const kwargs = keywords === null ? null : keywords(s, f);
      const kw: Record<string, unknown> = kwargs ?? Object.create(null);
      kw.caller = caller(s, f);
      const callee = fn(s, f);
      // jinja2 passes `caller=` as a keyword: a builtin refuses it, and a dict or namespace it builds is no output.
      if (callee instanceof Callable && callee.kind !== 'Macro') throw typeError(`${callee.name}() got an unexpected keyword argument 'caller'`);
      const v = callValue(callee, positional, kw);
      s.out += typeof v === 'string' ? v : pyStr(v);
      return 0;
    };
  }

  /** A filter expression whose innermost operand is supplied at run time (filter blocks, set blocks). */
  private filterChain(expr: Expr): (s: RenderState, f: Frame, input: unknown) => unknown {
    const chain: Array<Extract<Expr, { k: 'filter' }>> = [];
    let node: Expr | null = expr;
    while (node && node.k === 'filter') {
      chain.unshift(node);
      node = node.node;
    }
    const steps = chain.map((fnode) => this.filterStep(fnode));
    return (s, f, input) => {
      let v = input;
      for (const step of steps) v = step(s, f, v);
      return v;
    };
  }

  private filterStep(node: Extract<Expr, { k: 'filter' }>): (s: RenderState, f: Frame, value: unknown) => unknown {
    const { positional, keywords } = this.callArgs(node);
    if (!hasFilter(node.name)) {
      const raise = this.missing('filter', node);
      return (s, f) => raise(positional(s, f), keywords?.(s, f));
    }
    const fn: FilterFn = FILTERS[node.name]!;
    if (node.args.length === 0 && node.kwargs.length === 0 && !node.dynArgs && !node.dynKwargs) {
      return (_s, _f, v) => fn(v, NO_ARGS, null);
    }
    if (keywords === null) return (s, f, v) => fn(v, positional(s, f), null);
    return (s, f, v) => {
      const a = positional(s, f);
      return fn(v, a, keywords(s, f));
    };
  }

  /**
   * Call arguments as two closures, positional first (evaluation order); `keywords` is null when the call has none.
   * Calls with up to two plain positional arguments get closures without loops: they run on every render.
   */
  private callArgs(node: CallArgs): { positional: (s: RenderState, f: Frame) => unknown[]; keywords: ((s: RenderState, f: Frame) => Kwargs) | null } {
    const args = node.args.map((a) => this.expr(a));
    const kwargs = node.kwargs.map(([k, v]) => [k, this.expr(v)] as const);
    const dynArgs = node.dynArgs ? this.expr(node.dynArgs) : null;
    const dynKwargs = node.dynKwargs ? this.expr(node.dynKwargs) : null;
    let positional: (s: RenderState, f: Frame) => unknown[];
    if (dynArgs === null && args.length === 0) positional = () => NO_ARGS;
    else if (dynArgs === null && args.length === 1) {
      const [a0] = args as [Ev];
      positional = (s, f) => [a0(s, f)];
    } else if (dynArgs === null && args.length === 2) {
      const [a0, a1] = args as [Ev, Ev];
      positional = (s, f) => {
        const v0 = a0(s, f);
        return [v0, a1(s, f)];
      };
    } else {
      positional = (s, f) => {
        const a: unknown[] = [];
        for (let i = 0; i < args.length; i++) a.push(args[i]!(s, f));
        if (dynArgs) a.push(...iterate(dynArgs(s, f)));
        return a;
      };
    }
    if (kwargs.length === 0 && !dynKwargs) return { positional, keywords: null };
    const keywords = (s: RenderState, f: Frame): Kwargs => {
      const k = Object.create(null) as Record<string, unknown>;
      for (const [name, e] of kwargs) k[name] = e(s, f);
      if (dynKwargs) {
        const d = dynKwargs(s, f);
        if (!isDict(d)) throw typeError(`argument after ** must be a mapping, not ${pyTypeName(d)}`);
        for (const [key, v] of dictEntries(d)) k[pyStr(key)] = v;
      }
      return k;
    };
    return { positional, keywords };
  }

  expr(node: Expr): Ev {
    switch (node.k) {
      case 'const': {
        const value = node.value;
        return () => value;
      }
      case 'name': {
        const name = node.name;
        if (this.bound.has(name)) {
          return (_s, f) => {
            const v = f.get(name);
            return v === undefined ? new Undefined(name) : v;
          };
        }
        return (s) => {
          const v = s.root.get(name);
          return v === undefined ? new Undefined(name) : v;
        };
      }
      case 'list': {
        const items = node.items.map((e) => this.expr(e));
        return (s, f) => items.map((e) => e(s, f));
      }
      case 'tuple': {
        const items = node.items.map((e) => this.expr(e));
        return (s, f) => makeTuple(items.map((e) => e(s, f)));
      }
      case 'dict': {
        const pairs = node.pairs.map(([k, v]) => [this.expr(k), this.expr(v)] as const);
        return (s, f) => {
          const entries: Array<[unknown, unknown]> = [];
          for (const [k, v] of pairs) {
            const key = k(s, f);
            if (Array.isArray(key) || isDict(key)) throw typeError(`unhashable type: '${pyTypeName(key)}'`);
            // A Markup key hashes as its text.
            entries.push([unmark(key), v(s, f)]);
          }
          return buildDict(entries);
        };
      }
      case 'getattr': {
        const read = attrReader(node.attr);
        if (node.obj.k === 'name') {
          // `message.role`: the scope read and the attribute read in one closure.
          const name = node.obj.name;
          if (!this.bound.has(name)) {
            return (s) => {
              const v = s.root.get(name);
              return read(v === undefined ? new Undefined(name) : v);
            };
          }
          return (_s, f) => {
            const v = f.get(name);
            return read(v === undefined ? new Undefined(name) : v);
          };
        }
        const obj = this.expr(node.obj);
        return (s, f) => read(obj(s, f));
      }
      case 'getitem': {
        const obj = this.expr(node.obj);
        if (node.arg.k === 'const' && typeof node.arg.value === 'string') {
          const read = itemReader(node.arg.value);
          return (s, f) => read(obj(s, f));
        }
        const arg = this.expr(node.arg);
        return (s, f) => {
          const o = obj(s, f);
          const key = arg(s, f);
          // `messages[i]` with i in range: the list's own item.
          if (Array.isArray(o) && typeof key === 'number' && key >= 0 && key < o.length && Number.isInteger(key)) {
            const v: unknown = o[key];
            if (v !== undefined) return v;
          }
          return getItem(o, key);
        };
      }
      case 'slice': {
        const start = node.start ? this.expr(node.start) : null;
        const stop = node.stop ? this.expr(node.stop) : null;
        const step = node.step ? this.expr(node.step) : null;
        return (s, f) => new SliceValue(start ? start(s, f) : null, stop ? stop(s, f) : null, step ? step(s, f) : null);
      }
      case 'call':
        return this.call(node);
      case 'filter': {
        if (node.node === null) this.fail('filter without operand', node.pos, 'TemplateSyntaxError');
        const operand = this.expr(node.node);
        const step = this.filterStep(node);
        return (s, f) => step(s, f, operand(s, f));
      }
      case 'test':
        return this.test(node);
      case 'not': {
        const e = this.expr(node.node);
        return (s, f) => !truthy(e(s, f));
      }
      case 'neg': {
        const e = this.expr(node.node);
        return (s, f) => {
          const v = e(s, f);
          if (v instanceof Undefined) throw undefinedError(v);
          return negate(v);
        };
      }
      case 'pos': {
        const e = this.expr(node.node);
        return (s, f) => {
          const v = e(s, f);
          if (v instanceof Undefined) throw undefinedError(v);
          if (!isNumeric(v)) throw typeError(`bad operand type for unary +: '${pyTypeName(v)}'`);
          return typeof v === 'boolean' ? (v ? 1 : 0) : v;
        };
      }
      case 'bin': {
        if (node.op === '+') {
          // `a + b + c` is a left spine of `+`: one closure runs it, left to right as Python adds.
          const terms: Expr[] = [];
          let left: Expr = node;
          while (left.k === 'bin' && left.op === '+') {
            terms.push(left.right);
            left = left.left;
          }
          terms.push(left);
          return plusChain(terms.reverse().map((t) => this.expr(t)));
        }
        return arithmetic(node.op, this.expr(node.left), this.expr(node.right));
      }
      case 'and': {
        const left = this.expr(node.left);
        const right = this.expr(node.right);
        return (s, f) => {
          const v = left(s, f);
          return v === true || (v !== false && truthy(v)) ? right(s, f) : v;
        };
      }
      case 'or': {
        const left = this.expr(node.left);
        const right = this.expr(node.right);
        return (s, f) => {
          const v = left(s, f);
          return v === true || (v !== false && truthy(v)) ? v : right(s, f);
        };
      }
      case 'concat': {
        const parts = node.nodes.map((e) => this.expr(e));
        return (s, f) => {
          const strings = parts.map((p) => concatStr(p(s, f)));
          let length = 0;
          for (const str of strings) length += str.length;
          chargeChars(length);
          return strings.join('');
        };
      }
      case 'compare': {
        const first = this.expr(node.first);
        const ops = node.ops.map(([op, e]) => [op, this.expr(e)] as const);
        if (ops.length === 1) {
          const [op, right] = ops[0]!;
          const constant = node.ops[0]![1];
          if ((op === '==' || op === '!=') && constant.k === 'const' && typeof constant.value === 'string') {
            // `message.role == 'user'`: a string equals a string constant only when identical; pyEq for the rest.
            const text = constant.value;
            const equal = op === '==';
            return (s, f) => {
              const v = first(s, f);
              return (v === text || (typeof v !== 'string' && pyEq(v, text))) === equal;
            };
          }
          return (s, f) => compareOp(op, first(s, f), right(s, f));
        }
        return (s, f) => {
          let left = first(s, f);
          for (const [op, e] of ops) {
            const right = e(s, f);
            if (!compareOp(op, left, right)) return false;
            left = right;
          }
          return true;
        };
      }
      case 'cond': {
        const [test, then, otherwise] = this.withSoft(true, () => [
          this.expr(node.test), this.expr(node.then), node.otherwise ? this.expr(node.otherwise) : null,
        ] as const);
        return (s, f) => {
          if (truthy(test(s, f))) return then(s, f);
          if (otherwise) return otherwise(s, f);
          return new Undefined(null, undefined, 'the inline if-expression evaluated to false and no else section was defined.');
        };
      }
    }
  }

  private call(node: Extract<Expr, { k: 'call' }>): Ev {
    const { positional, keywords } = this.callArgs(node);
    if (node.fn.k === 'getattr') {
      // Method calls skip building a bound-method object.
      const obj = this.expr(node.fn.obj);
      const attr = node.fn.attr;
      return (s, f) => {
        const self = obj(s, f);
        if (self instanceof Undefined) throw undefinedError(self);
        const impl = methodImpl(self, attr);
        const a = positional(s, f);
        const k = keywords === null ? null : keywords(s, f);
        if (impl !== undefined && impl !== 'unsafe') return impl(self as never, a, k);
        return invoke(getAttr(self, attr), a, k);
      };
    }
    const fn = this.expr(node.fn);
    return (s, f) => {
      const callee = fn(s, f);
      const a = positional(s, f);
      const k = keywords === null ? null : keywords(s, f);
      return invoke(callee, a, k);
    };
  }

  /** The raw value of a name (JS undefined when unset): from the scope chain, or the root for names nothing binds. */
  private lookup(name: string): (s: RenderState, f: Frame) => unknown {
    if (this.bound.has(name)) return (_s, f) => f.get(name);
    return (s) => s.root.get(name);
  }

  /** Whether a name or an attribute exists, for the shapes that can answer without building an Undefined. */
  private presence(node: Expr): ((s: RenderState, f: Frame) => boolean) | null {
    if (node.k === 'name') {
      const lookup = this.lookup(node.name);
      return (s, f) => {
        const v = lookup(s, f);
        return v !== undefined && !(v instanceof Undefined);
      };
    }
    if (node.k === 'getattr') {
      const obj = this.expr(node.obj);
      const has = attrPresence(node.attr);
      return (s, f) => has(obj(s, f));
    }
    return null;
  }

  private test(node: Extract<Expr, { k: 'test' }>): Ev {
    const operand = this.expr(node.node);
    const { positional, keywords } = this.callArgs(node);
    if (node.name === 'filter' || node.name === 'test') {
      const lookup = node.name === 'filter' ? hasFilter : hasTest;
      return (s, f) => {
        const v = operand(s, f);
        return typeof v === 'string' && lookup(v);
      };
    }
    if (!hasTest(node.name)) {
      const raise = this.missing('test', node);
      return (s, f) => raise(operand(s, f), positional(s, f), keywords?.(s, f));
    }
    const noArgs = node.args.length === 0 && node.kwargs.length === 0 && !node.dynArgs && !node.dynKwargs;
    if (noArgs && (node.name === 'defined' || node.name === 'undefined')) {
      // `x is defined` asks whether the value exists: no Undefined is built to find out.
      const present = this.presence(node.node);
      if (present !== null) {
        const wanted = node.name === 'defined';
        return (s, f) => present(s, f) === wanted;
      }
    }
    const fn: TestFn = TESTS[node.name]!;
    if (noArgs) return (s, f) => fn(unmark(operand(s, f)), NO_ARGS);
    return (s, f) => {
      const v = operand(s, f);
      const a = positional(s, f);
      if (keywords !== null) keywords(s, f);
      return fn(unmark(v), a);
    };
  }
}

export { runBody };

const NOTHING: Ex = () => 0;

/** The arguments of every call without any: callees read them, never change them (frozen, so one that did would throw). */
const NO_ARGS: unknown[] = Object.freeze([]) as unknown as unknown[];

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

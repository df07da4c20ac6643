// AST → closures, the base of the compiler: soft frames, compile errors, call arguments and filter chains.
import type { CallArgs, Expr, Stmt } from './ast.js';
import { PyError, TemplateSyntaxError, typeError } from './errors.js';
import { FILTERS, hasFilter, type FilterFn } from './filters.js';
import { iterate } from './ops.js';
import { pyStr } from './repr.js';
import { RenderState } from './runtime.js';
import { Frame, RootSlots } from './scope.js';
import { KEYWORD_ORDER, dictEntries, isArrayIndexKey, isDict, pyTypeName } from './values.js';
import { scopedNames, type Ev, type Kwargs } from './compile-support.js';

/** The arguments of every call without any: callees read them, never change them (frozen, so one that did would throw). */
export const NO_ARGS: unknown[] = Object.freeze([]) as unknown as unknown[];

/** Whether a call, filter or test is written without arguments (`x|trim`, `x is defined`, `f()`). */
export function takesNoArguments(node: CallArgs): boolean {
  return node.args.length === 0 && node.kwargs.length === 0 && !node.dynArgs && !node.dynKwargs;
}

export abstract class CallCompiler {
  /**
   * True while compiling an if statement or a conditional expression (jinja2's "soft frame"): an unknown filter or
   * test there raises only when reached. Loop, macro, call, set and filter block bodies start a hard frame again.
   */
  protected soft = false;
  /** The names read through the scope chain (see scopedNames); any other name is read from the root scope. */
  protected readonly bound: Set<string>;
  /** The root scope's slot of every name the template mentions. */
  readonly slots = new RootSlots();

  constructor(
    protected readonly source: string,
    template: Stmt[],
  ) {
    this.bound = scopedNames(template);
  }

  protected withSoft<T>(soft: boolean, build: () => T): T {
    const saved = this.soft;
    this.soft = soft;
    try {
      return build();
    } finally {
      this.soft = saved;
    }
  }

  /** An unknown filter or test: a compile error, or in a soft frame an error when (if ever) it runs. */
  protected missing(kind: 'filter' | 'test', node: { name: string; pos: number }): (...evaluatedArgs: unknown[]) => never {
    if (!this.soft) this.fail(`No ${kind} named '${node.name}'.`, node.pos, 'TemplateAssertionError');
    const message = `No ${kind} named '${node.name}' found.`;
    return () => {
      throw new PyError('TemplateRuntimeError', message);
    };
  }

  protected fail(message: string, pos: number, pyType: string): never {
    let line = 1;
    for (let i = 0; i < pos && i < this.source.length; i++) if (this.source.charCodeAt(i) === 10) line++;
    throw new TemplateSyntaxError(message, line, pyType);
  }


  abstract expr(node: Expr): Ev;

  protected filterChain(expr: Expr): (s: RenderState, f: Frame, input: unknown) => unknown {
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

  protected filterStep(node: Extract<Expr, { k: 'filter' }>): (s: RenderState, f: Frame, value: unknown) => unknown {
    const direct = directFilter(node);
    if (direct !== null) return (_s, _f, v) => direct(v, NO_ARGS, null);
    const { positional, keywords } = this.callArgs(node);
    if (!hasFilter(node.name)) {
      const raise = this.missing('filter', node);
      return (s, f) => raise(positional(s, f), keywords?.(s, f));
    }
    const fn: FilterFn = FILTERS[node.name]!;
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
  protected callArgs(node: CallArgs): {
    positional: (s: RenderState, f: Frame) => unknown[];
    keywords: ((s: RenderState, f: Frame) => Kwargs) | null;
    /** The written-out positional arguments, compiled (what `positional` evaluates before any `*` list). */
    listed: readonly Ev[];
    /** The written-out keywords, compiled (what `keywords` evaluates before any `**` mapping). */
    written: ReadonlyArray<readonly [string, Ev]>;
  } {
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
    if (kwargs.length === 0 && !dynKwargs) return { positional, keywords: null, listed: args, written: kwargs };
    const keywords = (s: RenderState, f: Frame): Kwargs => {
      const k = Object.create(null) as Record<string, unknown>;
      for (const [name, e] of kwargs) k[name] = e(s, f);
      if (dynKwargs) {
        const d = dynKwargs(s, f);
        if (!isDict(d)) throw typeError(`argument after ** must be a mapping, not ${pyTypeName(d)}`);
        let reordered = false;
        const order = kwargs.map(([name]) => name);
        for (const [key, v] of dictEntries(d)) {
          const name = pyStr(key);
          // Python refuses a keyword given both by name and through **, before the callee runs.
          if (name in k) throw typeError(`got multiple values for keyword argument '${name}'`);
          k[name] = v;
          order.push(name);
          if (isArrayIndexKey(name)) reordered = true;
        }
        if (reordered) (k as { [KEYWORD_ORDER]?: string[] })[KEYWORD_ORDER] = order;
      }
      return k;
    };
    return { positional, keywords, listed: args, written: kwargs };
  }

}

/** A known filter written without arguments (`x|trim`, `x|length`): called as it is, with NO_ARGS; null otherwise. */
export function directFilter(node: Extract<Expr, { k: 'filter' }>): FilterFn | null {
  return takesNoArguments(node) && hasFilter(node.name) ? FILTERS[node.name]! : null;
}

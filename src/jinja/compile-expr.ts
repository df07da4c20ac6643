// AST → closures: expressions.
import type { Expr } from './ast.js';
import { FREE_SCAN_CHARS } from './budget.js';
import { PyError, typeError } from './errors.js';
import { hasFilter } from './filters.js';
import { Markup, unmark } from './markup.js';
import { methodImpl } from './methods.js';
import { negate } from './numbers.js';
import { SliceValue, attrPresence, attrReader, checkHashable, compareOp, getAttr, getItem, pyEq, undefinedError } from './ops.js';
import { LoopContext, RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { TESTS, extraArgumentsOf, hasTest, testBinder, type TestFn } from './tests.js';
import { MISSING, Undefined, buildDict, isDict, isNumeric, makeTuple, pyTypeName, truthy } from './values.js';
import { invoke, type Ev } from './compile-support.js';
import { arithmetic, ordering, plusChain } from './compile-fused.js';
import { concatChain, dictGetCall, itemPresence, itemRead, namespaceCall } from './compile-shapes.js';
import { CallCompiler, NO_ARGS, directFilter, takesNoArguments } from './compile-calls.js';
import { pathOf, pathReader, type Step } from './compile-paths.js';
import { keywordCall } from './compile-macro.js';

/** What condition() gives a statement to test (see compile-if.ts). */
export type Condition =
  | { k: 'equals'; operand: Ev; text: string; equal: boolean }
  | { k: 'not'; operand: Ev }
  | { k: 'and' | 'or'; left: Ev; right: Ev }
  | { k: 'present'; present: (s: RenderState, f: Frame) => boolean; wanted: boolean }
  | { k: 'value'; operand: Ev };

export abstract class ExprCompiler extends CallCompiler {
  expr(node: Expr): Ev {
    switch (node.k) {
      case 'const': {
        const value = node.value;
        return () => value;
      }
      case 'name': {
        const name = node.name;
        const slot = this.slots.slot(name);
        if (this.bound.has(name)) {
          return (_s, f) => {
            const v = f.get(name, slot);
            return v === undefined ? new Undefined(name) : v;
          };
        }
        return (s) => {
          const v = s.slots[slot];
          return v === undefined ? new Undefined(name) : v;
        };
      }
      case 'list': {
        const items = node.items.map((e) => this.expr(e));
        return (s, f) => evaluateAll(items, s, f);
      }
      case 'tuple': {
        const items = node.items.map((e) => this.expr(e));
        return (s, f) => makeTuple(evaluateAll(items, s, f));
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
      case 'getattr':
      case 'getitem': {
        const path = this.path(node);
        if (path !== null) return path;
        if (node.k === 'getattr') {
          const read = attrReader(node.attr);
          if (node.obj.k === 'name' && node.obj.name === 'loop') {
            // `loop.last`: the loop object's own fields first (loop is always read through the scope chain).
            const slot = this.slots.slot('loop');
            const attr = node.attr;
            return (_s, f) => {
              const v = f.get('loop', slot);
              if (v instanceof LoopContext) {
                const field = v.attr(attr);
                if (field !== MISSING) return field;
              }
              return read(v === undefined ? new Undefined('loop') : v);
            };
          }
          const obj = this.expr(node.obj);
          return (s, f) => read(obj(s, f));
        }
        const obj = this.expr(node.obj);
        if (node.arg.k === 'const' && typeof node.arg.value === 'string') {
          const read = itemRead(node.arg.value);
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
        // `x|trim`, `x|length`: the filter called directly, without the step closure a chain of filters needs.
        const direct = directFilter(node);
        if (direct !== null) return (s, f) => direct(operand(s, f), NO_ARGS, null);
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
        const terms = this.plusTerms(node);
        if (terms !== null) return plusChain(terms);
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
      case 'concat':
        return concatChain(node.nodes, node.nodes.map((e) => this.expr(e)));
      case 'compare': {
        const first = this.expr(node.first);
        const ops = node.ops.map(([op, e]) => [op, this.expr(e)] as const);
        if (ops.length === 1) {
          const [op, right] = ops[0]!;
          const constant = node.ops[0]![1];
          if ((op === '==' || op === '!=') && isShortText(constant)) {
            // `message.role == 'user'`: a string equals a string constant only when identical; pyEq for the rest.
            const text = constant.value;
            const equal = op === '==';
            return (s, f) => {
              const v = first(s, f);
              return (v === text || (typeof v !== 'string' && pyEq(v, text))) === equal;
            };
          }
          if (op === '<' || op === '>' || op === '<=' || op === '>=') return ordering(op, first, right);
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


  protected call(node: Extract<Expr, { k: 'call' }>): Ev {
    const namespace = this.bound.has('namespace') ? null : namespaceCall(node, (e) => this.expr(e));
    return namespace ?? this.generalCall(node);
  }

  private generalCall(node: Extract<Expr, { k: 'call' }>): Ev {
    const { positional, keywords, listed, written } = this.callArgs(node);
    const keywordNames = written.map(([k]) => k);
    if (node.fn.k !== 'getattr' && keywordNames.length > 0 && !node.dynKwargs && new Set(keywordNames).size === keywordNames.length) {
      return keywordCall(this.expr(node.fn), positional, keywordNames, written.map(([, e]) => e));
    }
    if (node.fn.k === 'getattr') {
      // Method calls skip building a bound-method object.
      const obj = this.expr(node.fn.obj);
      const attr = node.fn.attr;
      const method = (s: RenderState, f: Frame, self: unknown): unknown => {
        if (self instanceof Undefined) throw undefinedError(self);
        const impl = methodImpl(self, attr);
        const a = positional(s, f);
        const k = keywords === null ? null : keywords(s, f);
        if (impl !== undefined && impl !== 'unsafe') return impl(self as never, a, k);
        return invoke(getAttr(self, attr), a, k);
      };
      if (attr === 'get' && keywords === null && !node.dynArgs && (listed.length === 1 || listed.length === 2)) {
        return dictGetCall(obj, listed, method);
      }
      return (s, f) => method(s, f, obj(s, f));
    }
    const fn = this.expr(node.fn);
    return (s, f) => {
      const callee = fn(s, f);
      const a = positional(s, f);
      const k = keywords === null ? null : keywords(s, f);
      return invoke(callee, a, k);
    };
  }

  /** The compiled terms of `a + b + c` (a left spine of `+`, added left to right as Python adds), or null. */
  plusTerms(node: Expr): Ev[] | null {
    if (node.k !== 'bin' || node.op !== '+') return null;
    const terms: Expr[] = [];
    let left: Expr = node;
    while (left.k === 'bin' && left.op === '+') {
      terms.push(left.right);
      left = left.left;
    }
    terms.push(left);
    return terms.reverse().map((t) => this.expr(t));
  }

  /**
   * A statement's condition (`{% if %}`), in a shape the statement can test inline: one closure per condition
   * instead of the test's closure under the statement's. Each shape evaluates exactly what the expression would.
   */
  condition(node: Expr): Condition {
    switch (node.k) {
      case 'compare': {
        if (node.ops.length !== 1) break;
        const [op, constant] = node.ops[0]!;
        if ((op === '==' || op === '!=') && isShortText(constant)) {
          return { k: 'equals', operand: this.expr(node.first), text: constant.value, equal: op === '==' };
        }
        break;
      }
      case 'not':
        return { k: 'not', operand: this.expr(node.node) };
      case 'and':
      case 'or':
        return { k: node.k, left: this.expr(node.left), right: this.expr(node.right) };
      case 'test': {
        const plain = takesNoArguments(node);
        if (plain && (node.name === 'defined' || node.name === 'undefined') && hasTest(node.name)) {
          const present = this.presence(node.node);
          if (present !== null) return { k: 'present', present, wanted: node.name === 'defined' };
        }
        break;
      }
    }
    return { k: 'value', operand: this.expr(node) };
  }

  /** The raw value of a name (JS undefined when unset): from the scope chain, or the root for names nothing binds. */
  protected lookup(name: string): (s: RenderState, f: Frame) => unknown {
    const slot = this.slots.slot(name);
    if (this.bound.has(name)) return (_s, f) => f.get(name, slot);
    return (s) => s.slots[slot];
  }

  /** Whether a name or an attribute exists, for the shapes that can answer without building an Undefined. */
  protected presence(node: Expr): ((s: RenderState, f: Frame) => boolean) | null {
    if (node.k === 'name') {
      const lookup = this.lookup(node.name);
      return (s, f) => {
        const v = lookup(s, f);
        return v !== undefined && !(v instanceof Undefined);
      };
    }
    const key = node.k === 'getattr' ? node.attr : node.k === 'getitem' && node.arg.k === 'const' ? node.arg.value : null;
    if (typeof key === 'string' && (node.k === 'getattr' || node.k === 'getitem')) {
      const has = node.k === 'getattr' ? attrPresence(key) : itemPresence(key);
      const path = this.path(node.obj, has);
      if (path !== null) return path as (s: RenderState, f: Frame) => boolean;
      const obj = this.expr(node.obj);
      return (s, f) => has(obj(s, f));
    }
    return null;
  }

  /**
   * A read path (compile-paths.ts) in one closure, with `last` as its final step if given; null for other
   * expressions, and for paths from `loop`, whose first attribute is the loop object's own field.
   */
  private path(node: Expr, last?: Step): Ev | null {
    const path = pathOf(node);
    if (path === null || path.name === 'loop') return null;
    const steps = last === undefined ? path.steps : [...path.steps, last];
    if (steps.length === 0) return null;
    return pathReader(path.name, this.slots.slot(path.name), this.bound.has(path.name), steps);
  }

  protected test(node: Extract<Expr, { k: 'test' }>): Ev {
    const operand = this.expr(node.node);
    const { positional, keywords } = this.callArgs(node);
    const noArgs = takesNoArguments(node);
    if (node.name === 'filter' || node.name === 'test') {
      const lookup = node.name === 'filter' ? hasFilter : hasTest;
      const bind = testBinder(node.name);
      return (s, f) => {
        const v = unmark(operand(s, f));
        if (!noArgs) bind(positional(s, f), keywords?.(s, f) ?? null);
        // jinja2 asks `value in environment.filters`: a list or dict (or a tuple holding one) cannot be a dict key.
        checkHashable(v);
        return typeof v === 'string' && lookup(v);
      };
    }
    if (!hasTest(node.name)) {
      const raise = this.missing('test', node);
      return (s, f) => raise(operand(s, f), positional(s, f), keywords?.(s, f));
    }
    const fn: TestFn = TESTS[node.name]!;
    if (!noArgs || extraArgumentsOf(node.name) > 0) {
      // Arguments are bound as jinja2's Python call binds them, keywords included, with its TypeErrors.
      const bind = testBinder(node.name);
      return (s, f) => {
        const v = operand(s, f);
        return fn(unmark(v), bind(positional(s, f), keywords?.(s, f) ?? null));
      };
    }
    if (node.name === 'defined' || node.name === 'undefined') {
      // `x is defined` asks whether the value exists: no Undefined is built to find out.
      const present = this.presence(node.node);
      if (present !== null) {
        const wanted = node.name === 'defined';
        return (s, f) => present(s, f) === wanted;
      }
    }
    // The type tests templates run per message, without the shared test closure's calls (a Markup is a str).
    if (node.name === 'string') {
      return (s, f) => {
        const v = operand(s, f);
        return typeof v === 'string' || v instanceof Markup;
      };
    }
    if (node.name === 'none') return (s, f) => operand(s, f) === null;
    return (s, f) => fn(unmark(operand(s, f)), NO_ARGS);
  }
}

/**
 * The values of `evs` in order, in an array of exactly their number (a list literal is often kept: `set handled_keys =
 * ['name', 'type']`), without the callback closure and context `evs.map` would allocate.
 */
function evaluateAll(evs: readonly Ev[], s: RenderState, f: Frame): unknown[] {
  switch (evs.length) {
    case 0:
      return [];
    case 1:
      return [evs[0]!(s, f)];
    case 2:
      return [evs[0]!(s, f), evs[1]!(s, f)];
    case 3:
      return [evs[0]!(s, f), evs[1]!(s, f), evs[2]!(s, f)];
    default: {
      const out = [evs[0]!(s, f), evs[1]!(s, f), evs[2]!(s, f), evs[3]!(s, f)];
      for (let i = 4; i < evs.length; i++) out.push(evs[i]!(s, f));
      return out;
    }
  }
}

/**
 * A string constant short enough to compare with `===` for free. A longer one goes through pyEq, which pays for
 * reading it (budget.ts scanItems): two strings of its length are compared character by character.
 */
function isShortText(e: Expr): e is Extract<Expr, { k: 'const' }> & { value: string } {
  return e.k === 'const' && typeof e.value === 'string' && e.value.length < FREE_SCAN_CHARS;
}

/**
 * A printed constant sliced by constants (`{{ none[:2] }}`): jinja2 writes such an output as text at compile time,
 * through its getitem, where what cannot be sliced is Undefined and prints nothing. Anywhere else (inside another
 * operator, a test, a `set`) the slice runs, and Python's TypeError stands.
 */
export function isPrintedConstantSlice(e: Expr): boolean {
  return e.k === 'getitem' && e.arg.k === 'slice' && isFoldable(e.obj) && isFoldable(e.arg);
}

/** A printed constant slice's value: Undefined where the slice is Python's TypeError. */
export function undefinedOnTypeError(ev: Ev): Ev {
  return (s, f) => {
    try {
      return ev(s, f);
    } catch (error) {
      if (error instanceof PyError && error.pyType === 'TypeError') return new Undefined(null, null);
      throw error;
    }
  };
}

/**
 * Whether jinja2's optimizer folds the expression to a constant: literals, and lists, tuples, dicts, operators and
 * slices of them (a conditional whose test folds, by the branch it takes). Names, calls and filters are left to run.
 */
function isFoldable(e: Expr | null): boolean {
  if (e === null) return true;
  switch (e.k) {
    case 'const':
      return true;
    case 'list':
    case 'tuple':
      return e.items.every(isFoldable);
    case 'dict':
      return e.pairs.every(([key, value]) => isFoldable(key) && isFoldable(value));
    case 'slice':
      return isFoldable(e.start) && isFoldable(e.stop) && isFoldable(e.step);
    case 'not':
    case 'neg':
    case 'pos':
      return isFoldable(e.node);
    case 'bin':
    case 'and':
    case 'or':
      return isFoldable(e.left) && isFoldable(e.right);
    case 'concat':
      return e.nodes.every(isFoldable);
    case 'compare':
      return isFoldable(e.first) && e.ops.every(([, operand]) => isFoldable(operand));
    case 'cond': {
      if (e.test.k !== 'const') return false;
      const branch = truthy(e.test.value) ? e.then : e.otherwise;
      return branch !== null && isFoldable(branch);
    }
    default:
      return false;
  }
}

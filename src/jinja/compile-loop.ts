// The for loop at run time: iteration scopes, the loop object, inline filters, recursion.
import { LimitError } from './errors.js';
import { iterate } from './ops.js';
import { LoopContext, RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { truthy } from './values.js';
import { captureRun, enter, runBody, type Assign, type Ev, type Ex } from './compile-support.js';
import { reusedText, type Reuse } from './reuse.js';

export interface LoopParts {
  iter: Ev;
  assign: Assign;
  /** The inline `if` of `{% for x in xs if cond %}`. */
  test: Ev | null;
  body: Ex;
  otherwise: Ex[];
  usesLoop: boolean;
  recursive: boolean;
  /** The body assigns in its own scope (set, set block): each iteration must start from an empty scope. */
  bodyAssigns: boolean;
  /**
   * The body can keep its scope past the iteration (a macro or caller closes over it): each iteration then gets a new
   * scope object; otherwise one scope object is emptied between iterations, which jinja2 cannot tell apart.
   */
  bodyCapturesScope: boolean;
  /** A top-level loop's reuse (reuse.ts): the same list and the same names read give the same text. */
  reuse: Reuse | null;
}

export function tooManyIterations(s: RenderState): LimitError {
  return new LimitError(`more than ${s.limits.loopIterations} loop iterations (limits.loopIterations)`);
}

export function forLoop(parts: LoopParts): Ex {
  const { iter, assign, test, body, otherwise, usesLoop, recursive, bodyAssigns, bodyCapturesScope, reuse } = parts;
  /** The scope of the next iteration: a set in one iteration never leaks into the next (jinja2). */
  const nextScope = (inner: Frame, scope: Frame): Frame => {
    if (!bodyAssigns) return scope;
    if (bodyCapturesScope) return inner.child();
    scope.clear();
    return scope;
  };

  // `loop(items)` of a recursive loop, made outside run: a closure created inside it would make V8 allocate a context
  // for run's parameters on every loop, recursive or not.
  const recursion = (s: RenderState, f: Frame, depth0: number) => (args: unknown[]): string => {
    enter(s);
    try {
      return captureRun(s, () => run(s, f, args[0], depth0 + 1));
    } finally {
      s.depth--;
    }
  };

  // The loop's own scope holds `loop`, the inline test's item and what the else branch sets. A loop with none of them
  // would leave it empty: its iterations hang off the enclosing scope, one scope fewer to build and for every read of
  // an outer name from the body to pass.
  const ownScope = usesLoop || test !== null || otherwise.length > 0;

  const run = (s: RenderState, f: Frame, iterable: unknown, depth0: number): void => {
    let items = iterate(iterable);
    const inner = ownScope ? f.child() : f;
    // jinja2 filters lazily: each item's condition is evaluated just before its body runs, so a body that changes
    // what the condition reads (a namespace) decides which later items pass. Only `loop` (length, last) needs the
    // filtered list up front.
    if (test && !usesLoop) {
      let ran = 0;
      let scope = inner.child();
      for (const item of items) {
        // Every item tested is an iteration, kept or not: a test that is always false must not let an inner loop
        // walk 100,000 items for each of the outer loop's iterations unpaid.
        if (++s.iterations > s.limits.loopIterations) throw tooManyIterations(s);
        assign(inner, item);
        if (!truthy(test(s, inner))) continue;
        if (ran > 0) scope = nextScope(inner, scope);
        ran++;
        assign(scope, item);
        if (body(s, scope) === 1) break;
      }
      if (ran === 0) runBody(otherwise, s, inner);
      return;
    }
    if (test) {
      // The items tested are paid for here; the kept ones once more below, as the body runs for each.
      if ((s.iterations += items.length) > s.limits.loopIterations) throw tooManyIterations(s);
      const kept: unknown[] = [];
      for (const item of items) {
        assign(inner, item);
        if (truthy(test(s, inner))) kept.push(item);
      }
      items = kept;
    }
    if (items.length === 0) {
      runBody(otherwise, s, inner);
      return;
    }
    let loop: LoopContext | null = null;
    if (usesLoop) {
      loop = new LoopContext(items, depth0, recursive ? recursion(s, f, depth0) : null);
      inner.set('loop', loop);
    }
    let scope = inner.child();
    for (let i = 0; i < items.length; i++) {
      // Paid as each iteration runs, not for the whole list up front: a loop that breaks early (the next message that is
      // not a tool result) costs what it ran, and a long conversation scanned that way stays within the budget.
      if (++s.iterations > s.limits.loopIterations) throw tooManyIterations(s);
      if (i > 0) scope = nextScope(inner, scope);
      if (loop) loop.index0 = i;
      assign(scope, items[i]);
      if (body(s, scope) === 1) break;
    }
  };
  if (reuse === null) {
    return (s, f) => {
      run(s, f, iter(s, f), 0);
      return 0;
    };
  }
  return (s, f) => {
    const iterable = iter(s, f);
    const key = reuse.usable(s) ? reuse.keyOf(s, f, [iterable]) : null;
    if (key === null) {
      run(s, f, iterable, 0);
      return 0;
    }
    s.out += reusedText(s, reuse, key, () => run(s, f, iterable, 0));
    if (s.out.length > s.limits.outputChars) s.checkOutput();
    return 0;
  };
}

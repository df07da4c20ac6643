// Macros and caller blocks at run time: argument binding as Python binds a def's parameters.
import { RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { Callable, MISSING, Undefined, buildDict, keywordNames, makeTuple } from './values.js';
import { typeError } from './errors.js';
import { capture, enter, invoke, runBody, type Ev, type Ex } from './compile-support.js';
import { reusedText, type Reuse } from './reuse.js';

export interface MacroParts {
  name: string;
  names: string[];
  /** Each parameter's default, evaluated in the call's scope when the argument is missing. */
  defaults: Array<Ev | null>;
  body: Ex[];
  usesVarargs: boolean;
  usesKwargs: boolean;
  usesCaller: boolean;
  /** A macro's reuse (reuse.ts); null for a caller block. */
  reuse: Reuse | null;
}

/**
 * A macro's Callable with a second entry for calls whose keywords all name parameters: the call site passes the
 * keyword values by parameter (a plan it worked out once per macro definition, see keywordPlan) instead of a keyword
 * object the macro would have to search.
 */
export class MacroCallable extends Callable {
  constructor(
    name: string,
    call: Callable['call'],
    /** The parameter names, one array per macro definition: a call site's plan is good for every macro sharing it. */
    readonly params: readonly string[],
    readonly callPlanned: (args: unknown[], plan: KeywordPlan, values: unknown[]) => unknown,
    /** The definition's reuse and the scope it closes over: what a key must hold to stand for this macro. */
    readonly reuse: Reuse | null,
    readonly frame: Frame,
  ) {
    super(name, call, 'Macro');
  }
}

/** Where a call site's keywords go: for each parameter the index of the keyword naming it, or -1. */
export interface KeywordPlan {
  keywordOf: Int32Array;
  /** The lowest parameter index a keyword fills: a call with more positional arguments binds one twice. */
  firstFilled: number;
}

/** The plan of keywords `keywords` (distinct names) against parameters `params`, or null if one names none of them. */
export function keywordPlan(params: readonly string[], keywords: readonly string[]): KeywordPlan | null {
  const keywordOf = new Int32Array(params.length).fill(-1);
  let firstFilled = params.length;
  // A map, not a search of the parameters per keyword: both lists can be as long as the template allows.
  const indexOf = new Map<string, number>();
  for (let i = params.length - 1; i >= 0; i--) indexOf.set(params[i]!, i);
  for (let k = 0; k < keywords.length; k++) {
    const i = indexOf.get(keywords[k]!) ?? -1;
    if (i < 0) return null;
    keywordOf[i] = k;
    if (i < firstFilled) firstFilled = i;
  }
  return { keywordOf, firstFilled };
}

/** Builds the Callable for a macro (or a caller block) closing over the defining frame. */
export function macroBuilder(parts: MacroParts): (s: RenderState, f: Frame) => Callable {
  const { name, names, defaults, body, usesVarargs, usesKwargs, usesCaller, reuse } = parts;

  /** Binds the parameters (keyword values by parameter, MISSING where none) and renders the body. */
  const run = (
    s: RenderState, f: Frame, args: unknown[], keywordOf: Int32Array | null, values: unknown[],
    caller: unknown, extra: Map<string, unknown> | null,
  ): string => {
    const inner = f.child();
    if (caller !== MISSING) inner.set('caller', caller);
    // The bound values, when this call may be reused: its key (a caller block given makes it not reusable).
    const bound = reuse !== null && caller === MISSING && reuse.usable(s) ? new Array<unknown>(names.length + 2) : null;
    for (let i = 0; i < names.length; i++) {
      const pname = names[i]!;
      let v: unknown = MISSING;
      if (i < args.length) v = args[i];
      else if (keywordOf !== null && keywordOf[i]! >= 0) v = values[keywordOf[i]!];
      if (v === MISSING) {
        if (defaults[i]) v = defaults[i]!(s, inner);
        else v = new Undefined(pname, undefined, `parameter '${pname}' was not provided`);
      }
      inner.set(pname, v);
      if (bound !== null) bound[i] = v;
    }
    if (usesCaller && !inner.has('caller')) inner.set('caller', new Undefined('caller', undefined, 'No caller defined'));
    const varargs = usesVarargs ? makeTuple(args.slice(names.length)) : null;
    const kwargs = usesKwargs ? buildDict(extra === null ? [] : [...extra]) : null;
    if (varargs !== null) inner.set('varargs', varargs);
    if (kwargs !== null) inner.set('kwargs', kwargs);
    if (bound !== null) {
      bound[names.length] = varargs;
      bound[names.length + 1] = kwargs;
      const key = reuse!.keyOf(s, f, bound);
      if (key !== null) return reusedText(s, reuse!, key, () => runBody(body, s, inner));
    }
    return capture(body, s, inner);
  };

  const refuseExtraPositional = (args: unknown[]): void => {
    if (args.length > names.length && !usesVarargs) throw typeError(`macro '${name}' takes not more than ${names.length} argument(s)`);
  };

  return (s, f) =>
    new MacroCallable(
      name,
      (args, kwargs) => {
        enter(s);
        try {
          if (!kwargs) {
            refuseExtraPositional(args);
            return run(s, f, args, null, NO_VALUES, MISSING, null);
          }
          // As jinja2's Macro.__call__ binds: keywords fill the parameters the positional arguments left; `caller`
          // goes to a body that uses it (None counts as none given) unless a declared `caller` parameter took it; the
          // rest go to `kwargs`, or are an error; extra positional arguments are refused only after that.
          const rest = new Map(keywordNames(kwargs).map((key) => [key, kwargs[key]]));
          const keywordOf = new Int32Array(names.length).fill(-1);
          const values: unknown[] = [];
          for (let i = args.length; i < names.length; i++) {
            const pname = names[i]!;
            if (!rest.has(pname)) continue;
            keywordOf[i] = values.length;
            values.push(rest.get(pname));
            rest.delete(pname);
          }
          let caller: unknown = MISSING;
          const callerDeclared = args.length < names.length ? names.indexOf('caller') >= args.length : names.includes('caller');
          if (usesCaller && !callerDeclared && rest.has('caller')) {
            const given = rest.get('caller');
            rest.delete('caller');
            if (given !== null) caller = given;
          }
          let extra: Map<string, unknown> | null = null;
          if (usesKwargs) extra = rest;
          else if (rest.size > 0) {
            if (rest.has('caller')) throw typeError(`macro '${name}' was invoked with two values for the special caller argument. This is most likely a bug.`);
            throw typeError(`macro '${name}' takes no keyword argument '${rest.keys().next().value as string}'`);
          }
          refuseExtraPositional(args);
          return run(s, f, args, keywordOf, values, caller, extra);
        } finally {
          s.depth--;
        }
      },
      names,
      (args, plan, values) => {
        enter(s);
        try {
          refuseExtraPositional(args);
          return run(s, f, args, plan.keywordOf, values, MISSING, null);
        } finally {
          s.depth--;
        }
      },
      reuse,
      f,
    );
}

const NO_VALUES: unknown[] = [];

/**
 * A call `fn(..., k1=v1, k2=v2)` with written-out keywords of distinct names (evaluated in order after the positional
 * arguments, as any call's). A macro whose parameters they all name gets the values by parameter through a plan
 * made once per macro definition and kept by this call site; any other callee, or a call binding a parameter twice,
 * gets the keyword object of a general call.
 */
export function keywordCall(fn: Ev, positional: (s: RenderState, f: Frame) => unknown[], keywords: readonly string[], evs: Ev[]): Ev {
  let plannedFor: readonly string[] | null = null;
  let plan: KeywordPlan | null = null;
  return (s, f) => {
    const callee = fn(s, f);
    const args = positional(s, f);
    const values = new Array<unknown>(evs.length);
    for (let k = 0; k < evs.length; k++) values[k] = evs[k]!(s, f);
    if (callee instanceof MacroCallable) {
      if (callee.params !== plannedFor) {
        plan = keywordPlan(callee.params, keywords);
        plannedFor = callee.params;
      }
      if (plan !== null && args.length <= plan.firstFilled) return callee.callPlanned(args, plan, values);
    }
    const kwargs = Object.create(null) as Record<string, unknown>;
    for (let k = 0; k < keywords.length; k++) kwargs[keywords[k]!] = values[k];
    return invoke(callee, args, kwargs);
  };
}

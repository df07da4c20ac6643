// How the Python functions behind jinja2's filters and tests take their arguments, so that a call they would refuse
// is refused here too, with the TypeError Python words for it (a template that fails under transformers must fail
// here, not render).
import { typeError } from './errors.js';
import type { Kwargs } from './filter-args.js';
import { keywordNames } from './values.js';

/**
 * A Python callable's parameters, written as Python's messages count them: `do_indent(s, width=, first=, blank=)`.
 * A parameter ending in `=` has a default; `*args` and `**kwargs` take any surplus; a name ending in `/` is
 * positional-only. The first parameter is the filtered value, unless it is one jinja2 passes first (the environment,
 * context or evaluation context): then the value is the second.
 */
export type PythonCallable =
  /** `implicit`: how many leading parameters the caller fills (default: the value, and what jinja2 passes before it). */
  | { readonly kind: 'function'; readonly signature: string; readonly implicit?: number }
  /** A C builtin taking exactly one argument: `len`, `abs`, `callable`. */
  | { readonly kind: 'one-argument'; readonly name: string }
  /** A function from `operator` taking exactly two: `eq`, `lt`, ... */
  | { readonly kind: 'operator'; readonly name: string };

interface Signature {
  readonly name: string;
  readonly params: readonly string[];
  /** Leading parameters jinja2 fills itself: the value, and the environment or context before it. */
  readonly implicit: number;
  readonly required: number;
  readonly varargs: boolean;
  readonly varkw: boolean;
  readonly positionalOnly: boolean;
}

const PASSED_FIRST = new Set(['environment', 'env', 'context', 'eval_ctx']);

function parseSignature(text: string, implicitGiven?: number): Signature {
  const open = text.indexOf('(');
  const parts = text.slice(open + 1, -1).split(',').map((part) => part.trim()).filter((part) => part !== '');
  const params: string[] = [];
  let required = 0;
  let varargs = false;
  let varkw = false;
  let positionalOnly = false;
  for (const part of parts) {
    if (part.startsWith('**')) varkw = true;
    else if (part.startsWith('*')) varargs = true;
    else {
      if (part.endsWith('/')) positionalOnly = true;
      const name = part.replace(/[=/]$/, '');
      if (!part.endsWith('=')) required++;
      params.push(name);
    }
  }
  const implicit = implicitGiven ?? (PASSED_FIRST.has(params[0]!) ? 2 : 1);
  return { name: text.slice(0, open), params, implicit, required, varargs, varkw, positionalOnly };
}

/**
 * How a callable takes its arguments after the value: a call giving from `fewest` to `most` of them, with no keyword,
 * needs no binding (callers test that inline, as filters run on every render); any other goes through `bind`, which
 * returns the arguments with keywords moved to their positions, or throws the TypeError Python raises for the call.
 * Keywords are checked first (unknown, or naming a parameter a positional argument filled), then the positional
 * count, then missing parameters, as CPython does.
 */
export interface PythonArity {
  readonly fewest: number;
  readonly most: number;
  readonly bind: (args: readonly unknown[], kwargs: Kwargs) => unknown[];
  /** As `bind`, for callers that read the keywords themselves: a call that fits allocates nothing (`|tojson(indent=2)`). */
  readonly check: (args: readonly unknown[], kwargs: Kwargs) => void;
}

export function pythonArity(callable: PythonCallable): PythonArity {
  if (callable.kind !== 'function') {
    const count = callable.kind === 'operator' ? 1 : 0;
    const bind = (args: readonly unknown[], kwargs: Kwargs): unknown[] => {
      if (kwargs !== null && Object.keys(kwargs).length > 0) {
        throw typeError(`${callable.kind === 'operator' ? '_operator.' : ''}${callable.name}() takes no keyword arguments`);
      }
      const given = 1 + args.length;
      if (args.length === count) return args as unknown[];
      if (callable.kind === 'operator') throw typeError(`${callable.name} expected 2 arguments, got ${given}`);
      throw typeError(`${callable.name}() takes exactly one argument (${given} given)`);
    };
    return { fewest: count, most: count, bind, check: bind };
  }
  const signature = parseSignature(callable.signature, callable.implicit);
  const { implicit, params, required, varargs } = signature;
  const fewest = Math.max(0, required - implicit);
  const most = varargs ? Infinity : params.length - implicit;
  const bind = (args: readonly unknown[], kwargs: Kwargs): unknown[] =>
    kwargs === null && args.length >= fewest && args.length <= most ? (args as unknown[]) : bindSlowly(signature, args, kwargs);
  const check = (args: readonly unknown[], kwargs: Kwargs): void => {
    if (!fits(signature, args, kwargs)) bindSlowly(signature, args, kwargs);
  };
  return { fewest, most, bind, check };
}

/** Whether Python would take the call as it is, found without allocating (bindSlowly words the refusal). */
function fits(signature: Signature, args: readonly unknown[], kwargs: Kwargs): boolean {
  const { params, implicit, required } = signature;
  const given = implicit + args.length;
  if (!signature.varargs && given > params.length) return false;
  if (kwargs !== null) {
    for (const key in kwargs) {
      const at = signature.positionalOnly ? -1 : params.indexOf(key);
      if (at < 0 ? !signature.varkw : at < given) return false;
    }
  }
  for (let at = given; at < required; at++) if (kwargs === null || !(params[at]! in kwargs)) return false;
  return true;
}

/** `pythonArity(callable).bind`, for call sites that bind every call. */
export function pythonBinder(callable: PythonCallable): (args: readonly unknown[], kwargs: Kwargs) => unknown[] {
  return pythonArity(callable).bind;
}

function bindSlowly(signature: Signature, args: readonly unknown[], kwargs: Kwargs): unknown[] {
  const { name, params, implicit, required } = signature;
  const given = implicit + args.length;
  const bound = args.slice();
  for (const key of kwargs === null ? [] : keywordNames(kwargs)) {
    const at = signature.positionalOnly ? -1 : params.indexOf(key);
    if (at < 0) {
      if (signature.varkw) continue;
      throw typeError(`${name}() got an unexpected keyword argument '${key}'`);
    }
    if (at < given) throw typeError(`${name}() got multiple values for argument '${key}'`);
    bound[at - implicit] = kwargs![key];
  }
  if (given > params.length && !signature.varargs) {
    const range = required === params.length ? `${params.length}` : `from ${required} to ${params.length}`;
    const noun = range === '1' ? 'argument' : 'arguments';
    throw typeError(`${name}() takes ${range} positional ${noun} but ${given} were given`);
  }
  const missing: string[] = [];
  for (let at = given; at < required; at++) if (!(at - implicit in bound)) missing.push(`'${params[at]}'`);
  if (missing.length > 0) {
    const listed = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')}${missing.length > 2 ? ',' : ''} and ${missing.at(-1)}`;
    throw typeError(`${name}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${listed}`);
  }
  return bound;
}

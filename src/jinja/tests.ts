// jinja2's builtin tests (`x is name(args)`).
import { pyStr } from './repr.js';
import { typeError } from './errors.js';
import { arith, compareOp, contains, pyEq, undefinedError } from './ops.js';
import type { Kwargs } from './filter-args.js';
import { Callable, PyFloat, PyGenerator, Undefined, isDict, isNumeric } from './values.js';

export type TestFn = (value: unknown, args: unknown[]) => boolean;

function isIntValue(value: unknown): boolean {
  return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
}

function oddEven(value: unknown, odd: boolean): boolean {
  if (value instanceof Undefined) throw undefinedError(value);
  const r = arith('%', value, 2);
  return odd ? pyEq(r, 1) : pyEq(r, 0);
}

function strCase(value: unknown, upper: boolean): boolean {
  const text = pyStr(value);
  const cased = Array.from(text).some((ch) => ch.toLowerCase() !== ch.toUpperCase());
  return cased && (upper ? text.toUpperCase() === text : text.toLowerCase() === text);
}

const compare = (op: string): TestFn => (value, args) => compareOp(op, value, args[0]);

export const TESTS: Record<string, TestFn> = {
  defined: (v) => !(v instanceof Undefined),
  undefined: (v) => v instanceof Undefined,
  none: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  integer: (v) => isIntValue(v),
  float: (v) => (typeof v === 'number' && !Number.isInteger(v)) || v instanceof PyFloat,
  number: (v) => isNumeric(v),
  string: (v) => typeof v === 'string',
  mapping: (v) => isDict(v),
  sequence: (v) => typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof Undefined,
  iterable: (v) => typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof Undefined || v instanceof PyGenerator,
  callable: (v) => v instanceof Callable || v instanceof Undefined,
  sameas: (v, a) => v === a[0],
  escaped: () => false,
  odd: (v) => oddEven(v, true),
  even: (v) => oddEven(v, false),
  divisibleby: (v, a) => pyEq(arith('%', v, a[0]), 0),
  lower: (v) => strCase(v, false),
  upper: (v) => strCase(v, true),
  in: (v, a) => contains(a[0], v),
  eq: compare('=='),
  equalto: compare('=='),
  '==': compare('=='),
  ne: compare('!='),
  '!=': compare('!='),
  lt: compare('<'),
  lessthan: compare('<'),
  '<': compare('<'),
  le: compare('<='),
  '<=': compare('<='),
  gt: compare('>'),
  greaterthan: compare('>'),
  '>': compare('>'),
  ge: compare('>='),
  '>=': compare('>='),
};

/**
 * How jinja2 calls each test, for the TypeErrors a wrong call raises there. Most tests are Python functions
 * `test_NAME(value, ...)` (`filter` and `test` also take the environment first); the comparisons are C functions from
 * `operator`, and `callable` is Python's builtin.
 */
type TestSignature =
  | { readonly kind: 'function'; readonly name: string; readonly params: readonly string[]; readonly implicit: number }
  | { readonly kind: 'operator'; readonly name: string }
  | { readonly kind: 'callable' };

const OPERATOR_NAMES: Record<string, string> = {
  eq: 'eq', equalto: 'eq', '==': 'eq', ne: 'ne', '!=': 'ne', lt: 'lt', lessthan: 'lt', '<': 'lt',
  le: 'le', '<=': 'le', gt: 'gt', greaterthan: 'gt', '>': 'gt', ge: 'ge', '>=': 'ge',
};
const EXTRA_PARAMS: Record<string, string> = { divisibleby: 'num', sameas: 'other', in: 'seq' };

function signatureOf(test: string): TestSignature {
  const operator = OPERATOR_NAMES[test];
  if (operator !== undefined) return { kind: 'operator', name: operator };
  if (test === 'callable') return { kind: 'callable' };
  if (test === 'filter' || test === 'test') return { kind: 'function', name: `test_${test}`, params: ['env', 'value'], implicit: 2 };
  const extra = EXTRA_PARAMS[test];
  return { kind: 'function', name: `test_${test}`, params: extra === undefined ? ['value'] : ['value', extra], implicit: 1 };
}

/** How many arguments beyond the value a test requires (its noArgs form raises when this is not 0). */
export function extraArgumentsOf(test: string): number {
  return extraArguments(signatureOf(test));
}

function extraArguments(signature: TestSignature): number {
  if (signature.kind === 'operator') return 1;
  if (signature.kind === 'callable') return 0;
  return signature.params.length - signature.implicit;
}

/**
 * Binds the arguments after the value as Python binds them to the test's parameters, or raises the TypeError jinja2
 * raises for the call: keywords are checked first (unknown, or naming a parameter a positional argument filled), then
 * the positional count, then missing parameters. Made once per call site; a call that fits returns its arguments.
 */
export function testBinder(test: string): (args: readonly unknown[], kwargs: Kwargs) => unknown[] {
  const signature = signatureOf(test);
  const extra = extraArguments(signature);
  return (args, kwargs) => {
    if (kwargs === null && args.length === extra) return args as unknown[];
    return bindSlowly(signature, args, kwargs);
  };
}

function bindSlowly(signature: TestSignature, args: readonly unknown[], kwargs: Kwargs): unknown[] {
  const keys = kwargs === null ? [] : Object.keys(kwargs);
  if (signature.kind !== 'function') {
    const name = signature.kind === 'operator' ? signature.name : 'callable';
    if (keys.length > 0) throw typeError(`${signature.kind === 'operator' ? '_operator.' : ''}${name}() takes no keyword arguments`);
    const given = 1 + args.length;
    if (signature.kind === 'operator' && given !== 2) throw typeError(`${name} expected 2 arguments, got ${given}`);
    if (signature.kind === 'callable' && given !== 1) throw typeError(`callable() takes exactly one argument (${given} given)`);
    return args as unknown[];
  }
  const { name, params, implicit } = signature;
  const given = implicit + args.length;
  const bound = args.slice();
  for (const key of keys) {
    const at = params.indexOf(key);
    if (at < 0) throw typeError(`${name}() got an unexpected keyword argument '${key}'`);
    if (at < given) throw typeError(`${name}() got multiple values for argument '${key}'`);
    bound[at - implicit] = kwargs![key];
  }
  if (given > params.length) {
    const takes = `${params.length} positional argument${params.length === 1 ? '' : 's'}`;
    throw typeError(`${name}() takes ${takes} but ${given} were given`);
  }
  const missing = params.filter((_, at) => at >= given && !(at - implicit in bound)).map((param) => `'${param}'`);
  if (missing.length > 0) {
    const listed = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')}${missing.length > 2 ? ',' : ''} and ${missing.at(-1)}`;
    throw typeError(`${name}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${listed}`);
  }
  return bound;
}

/** Checked by `is filter` / `is test` at compile time. */
export function hasTest(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(TESTS, name);
}

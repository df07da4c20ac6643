// jinja2's builtin tests (`x is name(args)`).
import { pyStr } from './repr.js';
import { arith, compareOp, contains, pyEq, undefinedError } from './ops.js';
import type { Kwargs } from './filter-args.js';
import { pythonArity, pythonBinder, type PythonCallable } from './python-call.js';
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

const OPERATORS: Record<string, string> = {
  eq: 'eq', equalto: 'eq', '==': 'eq', ne: 'ne', '!=': 'ne', lt: 'lt', lessthan: 'lt', '<': 'lt',
  le: 'le', '<=': 'le', gt: 'gt', greaterthan: 'gt', '>': 'gt', ge: 'ge', '>=': 'ge',
};
const TAKING_MORE: Record<string, string> = {
  divisibleby: 'test_divisibleby(value, num)',
  sameas: 'test_sameas(value, other)',
  in: 'test_in(value, seq)',
  filter: 'test_filter(env, value)',
  test: 'test_test(env, value)',
};

/** The Python callable jinja2 runs for a test: `test_NAME(value)` unless listed, `callable` the builtin. */
function pythonTest(test: string): PythonCallable {
  const operator = OPERATORS[test];
  if (operator !== undefined) return { kind: 'operator', name: operator };
  if (test === 'callable') return { kind: 'one-argument', name: 'callable' };
  return { kind: 'function', signature: TAKING_MORE[test] ?? `test_${test}(value)` };
}

/** How many arguments beyond the value a test requires (its form without arguments raises when this is not 0). */
export function extraArgumentsOf(test: string): number {
  return pythonArity(pythonTest(test)).fewest;
}

/**
 * Binds a test's arguments after the value as jinja2's Python call binds them (keywords included), or raises its
 * TypeError. Made once per call site.
 */
export function testBinder(test: string): (args: readonly unknown[], kwargs: Kwargs) => unknown[] {
  return pythonBinder(pythonTest(test));
}

/** Checked by `is filter` / `is test` at compile time. */
export function hasTest(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(TESTS, name);
}

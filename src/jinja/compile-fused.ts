// Closures for the operator shapes chat templates run most, each doing in one call what nested closures did.
import { chargeChars } from './budget.js';
import { arith, compareOp } from './ops.js';
import { emit, type Ev, type Ex } from './compile-support.js';

/**
 * `t0 + t1 + ... + tn`, evaluated and added left to right exactly as the nested form (an operand after a failing
 * addition is never evaluated), with every intermediate string paid for as before.
 */
export function plusChain(terms: Ev[]): Ev {
  if (terms.length === 2) {
    const [left, right] = terms as [Ev, Ev];
    return (s, f) => add(left(s, f), right(s, f));
  }
  const first = terms[0]!;
  const rest = terms.slice(1);
  return (s, f) => {
    let acc = first(s, f);
    for (let i = 0; i < rest.length; i++) acc = add(acc, rest[i]!(s, f));
    return acc;
  };
}

/** `{{ t0 + t1 + ... }}`: plusChain's sum written out by the same closure. */
export function printSum(terms: Ev[]): Ex {
  if (terms.length === 2) {
    const [left, right] = terms as [Ev, Ev];
    return (s, f) => {
      emit(s, add(left(s, f), right(s, f)));
      return 0;
    };
  }
  const first = terms[0]!;
  const rest = terms.slice(1);
  return (s, f) => {
    let acc = first(s, f);
    for (let i = 0; i < rest.length; i++) acc = add(acc, rest[i]!(s, f));
    emit(s, acc);
    return 0;
  };
}

function add(a: unknown, b: unknown): unknown {
  // String concatenation is most of what `+` does in chat templates.
  if (typeof a === 'string' && typeof b === 'string') {
    chargeChars(a.length + b.length);
    return a + b;
  }
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return arith('+', a, b);
}

export function arithmetic(op: string, left: Ev, right: Ev): Ev {
  if (op === '-') {
    // `messages|length - 1`, `loop.index0 - 1`: int minus int is a JS subtraction while the result stays exact.
    return (s, f) => {
      const a = left(s, f);
      const b = right(s, f);
      if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
        const difference = a - b;
        if (Number.isSafeInteger(difference)) return difference;
      }
      return arith(op, a, b);
    };
  }
  return (s, f) => arith(op, left(s, f), right(s, f));
}

/** `a < b` and the like: two JS numbers (ints within 2^53 and floats alike) compare as Python compares them. */
export function ordering(op: '<' | '>' | '<=' | '>=', left: Ev, right: Ev): Ev {
  switch (op) {
    case '<':
      return (s, f) => {
        const a = left(s, f);
        const b = right(s, f);
        return typeof a === 'number' && typeof b === 'number' ? a < b : compareOp(op, a, b);
      };
    case '>':
      return (s, f) => {
        const a = left(s, f);
        const b = right(s, f);
        return typeof a === 'number' && typeof b === 'number' ? a > b : compareOp(op, a, b);
      };
    case '<=':
      return (s, f) => {
        const a = left(s, f);
        const b = right(s, f);
        return typeof a === 'number' && typeof b === 'number' ? a <= b : compareOp(op, a, b);
      };
    case '>=':
      return (s, f) => {
        const a = left(s, f);
        const b = right(s, f);
        return typeof a === 'number' && typeof b === 'number' ? a >= b : compareOp(op, a, b);
      };
  }
}

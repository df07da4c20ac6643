// Closures for the operator shapes chat templates run most, each doing in one call what nested closures did.
import { chargeChars } from './budget.js';
import { arith } from './ops.js';
import type { Ev } from './compile-support.js';

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

function add(a: unknown, b: unknown): unknown {
  // String concatenation is most of what `+` does in chat templates.
  if (typeof a === 'string' && typeof b === 'string') {
    chargeChars(a.length + b.length);
    return a + b;
  }
  return arith('+', a, b);
}

export function arithmetic(op: string, left: Ev, right: Ev): Ev {
  return (s, f) => arith(op, left(s, f), right(s, f));
}

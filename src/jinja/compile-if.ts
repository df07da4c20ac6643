// The if statement with its condition tested inline (ExprCompiler.condition gives the shape), and the else branch
// skipped rather than called when the template has none: the statements chat templates run most, in one closure.
import { pyEq } from './ops.js';
import { truthy } from './values.js';
import type { Condition } from './compile-expr.js';
import type { Ex } from './compile-support.js';

const isTrue = (v: unknown): boolean => v === true || (v !== false && truthy(v));

export function ifStatement(condition: Condition, body: Ex, otherwise: Ex | null): Ex {
  switch (condition.k) {
    case 'equals': {
      const { operand, text, equal } = condition;
      return (s, f) => {
        const v = operand(s, f);
        if ((v === text || (typeof v !== 'string' && pyEq(v, text))) === equal) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
    case 'not': {
      const { operand } = condition;
      return (s, f) => {
        if (!isTrue(operand(s, f))) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
    case 'and': {
      const { left, right } = condition;
      return (s, f) => {
        if (isTrue(left(s, f)) && isTrue(right(s, f))) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
    case 'or': {
      const { left, right } = condition;
      return (s, f) => {
        if (isTrue(left(s, f)) || isTrue(right(s, f))) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
    case 'present': {
      const { present, wanted } = condition;
      return (s, f) => {
        if (present(s, f) === wanted) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
    case 'value': {
      const { operand } = condition;
      return (s, f) => {
        if (isTrue(operand(s, f))) return body(s, f);
        return otherwise === null ? 0 : otherwise(s, f);
      };
    }
  }
}

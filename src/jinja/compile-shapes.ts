// `a ~ b ~ c` as chat templates write it (tags around a value, mostly string literals): one closure per arity,
// without the array of parts and the join the general form allocates on every evaluation.
import type { Expr } from './ast.js';
import { chargeChars } from './budget.js';
import { concatStr } from './ops.js';
import type { Ev } from './compile-support.js';

/**
 * The concatenation of `nodes` (compiled as `parts`): each operand evaluated and turned into a string in order, the
 * whole result paid for once, as the general form does. Adjacent string literals are joined at compile time.
 */
export function concatChain(nodes: readonly Expr[], parts: readonly Ev[]): Ev {
  const merged: Array<Ev | string> = [];
  nodes.forEach((node, i) => {
    const last = merged[merged.length - 1];
    if (node.k === 'const' && typeof node.value === 'string') {
      if (typeof last === 'string') merged[merged.length - 1] = last + node.value;
      else merged.push(node.value);
    } else merged.push(parts[i]!);
  });
  const evs = merged.map((part) => (typeof part === 'string' ? () => part : part));
  switch (evs.length) {
    case 1: {
      const [a] = evs as [Ev];
      return (s, f) => {
        const x = concatStr(a(s, f));
        chargeChars(x.length);
        return x;
      };
    }
    case 2: {
      const [a, b] = evs as [Ev, Ev];
      return (s, f) => {
        const x = concatStr(a(s, f));
        const y = concatStr(b(s, f));
        chargeChars(x.length + y.length);
        return x + y;
      };
    }
    case 3: {
      const [a, b, c] = evs as [Ev, Ev, Ev];
      return (s, f) => {
        const x = concatStr(a(s, f));
        const y = concatStr(b(s, f));
        const z = concatStr(c(s, f));
        chargeChars(x.length + y.length + z.length);
        return x + y + z;
      };
    }
    default:
      return (s, f) => {
        // Joined as it goes: a rope node per operand, flattened once when the text is read.
        let out = '';
        for (let i = 0; i < evs.length; i++) out += concatStr(evs[i]!(s, f));
        chargeChars(out.length);
        return out;
      };
  }
}

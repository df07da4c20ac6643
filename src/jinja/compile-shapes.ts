// Closures for expression shapes the slowest official templates run on every message: `a ~ b ~ c`, and
// `message['key']` where the key is often missing (`message['tool_calls'] is defined`, `message['tool_calls']`).
import type { Expr } from './ast.js';
import { chargeChars } from './budget.js';
import { attrPresence, attrReader, concatStr, getItem } from './ops.js';
import { Undefined } from './values.js';
import type { Ev } from './compile-support.js';

const hasOwnProperty = Object.prototype.hasOwnProperty;

function isPlainObject(obj: unknown): obj is Record<string, unknown> {
  if (obj === null || typeof obj !== 'object') return false;
  const proto = Object.getPrototypeOf(obj);
  return proto === Object.prototype || proto === null;
}

/**
 * `obj['key']` for a string key fixed at compile time. jinja2 reads the item first and falls back to the attribute;
 * on a plain-object dict without the key that fallback is exactly `obj.key` (a dict method, a refused dunder or an
 * Undefined), so it goes to the compiled attribute read instead of through getItem, dictGet and getAttr.
 */
export function itemRead(key: string): (obj: unknown) => unknown {
  const attribute = attrReader(key);
  return (obj) => {
    if (!isPlainObject(obj)) return getItem(obj, key);
    if (hasOwnProperty.call(obj, key)) {
      const value = obj[key];
      if (value !== undefined) return value;
    }
    return attribute(obj);
  };
}

/** Whether `obj['key']` is defined (`x['key'] is defined`), without building the Undefined when it is not. */
export function itemPresence(key: string): (obj: unknown) => boolean {
  const attribute = attrPresence(key);
  return (obj) => {
    if (!isPlainObject(obj)) return !(getItem(obj, key) instanceof Undefined);
    if (hasOwnProperty.call(obj, key)) {
      const value = obj[key];
      if (value !== undefined) return !(value instanceof Undefined);
    }
    return attribute(obj);
  };
}

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

// How CPython's str, list, tuple and dict methods count their arguments, so that a method call Python refuses is
// refused here too with its TypeError. CPython words these four ways, by how each method parses its arguments.
import { typeError } from './errors.js';
import type { Kwargs } from './filter-args.js';
import { keywordNames } from './values.js';

/**
 * - `none`: no arguments (`str.upper()`); `one`: exactly one (`str.join()`);
 * - `clinic`: from `min` to `max`, worded "strip expected at most 1 argument, got 2";
 * - `tuple`: from `min` to `max`, worded "find() takes at least 1 argument (0 given)";
 * - `keywords`: up to `max`, each also by the keyword in `names` (`split(sep=None, maxsplit=-1)`).
 * Apart from `keywords`, no method here takes a keyword.
 */
type Arity =
  | { readonly kind: 'none' }
  | { readonly kind: 'one' }
  | { readonly kind: 'clinic' | 'tuple'; readonly min: number; readonly max: number }
  | { readonly kind: 'keywords'; readonly names: readonly string[] };

const none = { kind: 'none' } as const;
const one = { kind: 'one' } as const;
const clinic = (min: number, max: number): Arity => ({ kind: 'clinic', min, max });
const tuple = (min: number, max: number): Arity => ({ kind: 'tuple', min, max });
const keywords = (...names: string[]): Arity => ({ kind: 'keywords', names });

const STR: Record<string, Arity> = {
  strip: clinic(0, 1), lstrip: clinic(0, 1), rstrip: clinic(0, 1), replace: clinic(2, 3),
  center: clinic(1, 2), ljust: clinic(1, 2), rjust: clinic(1, 2),
  startswith: tuple(1, 3), endswith: tuple(1, 3), find: tuple(1, 3), rfind: tuple(1, 3), index: tuple(1, 3),
  rindex: tuple(1, 3), count: tuple(1, 3),
  join: one, zfill: one, partition: one, rpartition: one, removeprefix: one, removesuffix: one, translate: one,
  split: keywords('sep', 'maxsplit'), rsplit: keywords('sep', 'maxsplit'), splitlines: keywords('keepends'),
  expandtabs: keywords('tabsize'),
};
const SEQUENCE: Record<string, Arity> = { index: clinic(1, 3), count: one, copy: none };
const DICT: Record<string, Arity> = { get: clinic(1, 2), items: none, keys: none, values: none, copy: none };

function plural(n: number): string {
  return n === 1 ? 'argument' : 'arguments';
}

/**
 * How `type.method(...)` takes its arguments (`type`: str, list, tuple, dict): a call giving from `fewest` to `most`
 * positional arguments and no keyword is fine (callers test that inline); any other goes through `check`, which throws
 * Python's TypeError for arguments the method refuses. Methods not listed (str.format) take anything; str's
 * predicates and case maps take none.
 */
export interface MethodArity {
  readonly fewest: number;
  readonly most: number;
  readonly check: (args: readonly unknown[], kwargs: Kwargs) => void;
}

const ANYTHING: MethodArity = { fewest: 0, most: Infinity, check: () => undefined };

export function methodArity(type: string, method: string): MethodArity {
  const table = type === 'str' ? STR : type === 'dict' ? DICT : SEQUENCE;
  // format takes anything; format_map counts its own arguments (methods.ts formatMapArgument).
  const arity = Object.prototype.hasOwnProperty.call(table, method) ? table[method]! : type === 'str' && method !== 'format' && method !== 'format_map' ? none : undefined;
  if (arity === undefined) return ANYTHING;
  const qualified = `${type}.${method}()`;
  const check = (args: readonly unknown[], kwargs: Kwargs): void => {
    const keys = kwargs === null ? [] : keywordNames(kwargs);
    const n = args.length;
    if (arity.kind === 'keywords') {
      const max = arity.names.length;
      const given = n + keys.length;
      if (given > max) throw typeError(`${method}() takes at most ${max} ${n === 0 ? 'keyword ' : ''}${plural(max)} (${given} given)`);
      for (const key of keys) {
        const at = arity.names.indexOf(key);
        if (at < 0) throw typeError(`'${key}' is an invalid keyword argument for ${method}()`);
        if (at < n) throw typeError(`argument for ${method}() given by name ('${key}') and position (${at + 1})`);
      }
      return;
    }
    if (keys.length > 0) throw typeError(`${qualified} takes no keyword arguments`);
    if (arity.kind === 'none') {
      if (n > 0) throw typeError(`${qualified} takes no arguments (${n} given)`);
    } else if (arity.kind === 'one') {
      if (n !== 1) throw typeError(`${qualified} takes exactly one argument (${n} given)`);
    } else if (arity.kind === 'clinic') {
      if (n < arity.min) throw typeError(`${method} expected at least ${arity.min} ${plural(arity.min)}, got ${n}`);
      if (n > arity.max) throw typeError(`${method} expected at most ${arity.max} ${plural(arity.max)}, got ${n}`);
    } else {
      if (n < arity.min) throw typeError(`${method}() takes at least ${arity.min} ${plural(arity.min)} (${n} given)`);
      if (n > arity.max) throw typeError(`${method}() takes at most ${arity.max} ${plural(arity.max)} (${n} given)`);
    }
  };
  const [fewest, most] =
    arity.kind === 'none' ? [0, 0] : arity.kind === 'one' ? [1, 1] : arity.kind === 'keywords' ? [0, arity.names.length] : [arity.min, arity.max];
  return { fewest, most, check };
}

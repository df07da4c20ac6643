// Macros and caller blocks at run time: argument binding as Python binds a def's parameters.
import { RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { Callable, Undefined, buildDict, makeTuple } from './values.js';
import { typeError } from './errors.js';
import { capture, enter, type Ev, type Ex } from './compile-support.js';

export interface MacroParts {
  name: string;
  names: string[];
  /** Each parameter's default, evaluated in the call's scope when the argument is missing. */
  defaults: Array<Ev | null>;
  body: Ex[];
  usesVarargs: boolean;
  usesKwargs: boolean;
  usesCaller: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Builds the Callable for a macro (or a caller block) closing over the defining frame. */
export function macroBuilder(parts: MacroParts): (s: RenderState, f: Frame) => Callable {
  const { name, names, defaults, body, usesVarargs, usesKwargs, usesCaller } = parts;
  return (s, f) =>
    new Callable(
      name,
      (args, kwargs) => {
        enter(s);
        try {
          const inner = f.child();
          if (args.length > names.length && !usesVarargs) {
            throw typeError(`macro '${name}' takes not more than ${names.length} argument(s)`);
          }
          let extra: Record<string, unknown> | null = null;
          if (kwargs) {
            for (const key of Object.keys(kwargs)) {
              if (names.includes(key)) continue;
              if (key === 'caller' && usesCaller) inner.set('caller', kwargs[key]);
              else if (usesKwargs) (extra ??= Object.create(null) as Record<string, unknown>)[key] = kwargs[key];
              else throw typeError(`macro '${name}' takes no keyword argument '${key}'`);
            }
          }
          for (let i = 0; i < names.length; i++) {
            const pname = names[i]!;
            let v: unknown;
            if (i < args.length) {
              if (kwargs && hasOwn.call(kwargs, pname)) throw typeError(`macro '${name}' got multiple values for argument '${pname}'`);
              v = args[i];
            } else if (kwargs && hasOwn.call(kwargs, pname)) v = kwargs[pname];
            else if (defaults[i]) v = defaults[i]!(s, inner);
            else v = new Undefined(pname, undefined, `parameter '${pname}' was not provided`);
            inner.set(pname, v);
          }
          if (usesCaller && !inner.has('caller')) inner.set('caller', new Undefined('caller', undefined, 'No caller defined'));
          if (usesVarargs) inner.set('varargs', makeTuple(args.slice(names.length)));
          if (usesKwargs) inner.set('kwargs', buildDict(extra === null ? [] : Object.keys(extra).map((k) => [k, extra![k]])));
          return capture(body, s, inner);
        } finally {
          s.depth--;
        }
      },
      'Macro',
    );
}

// Closures for shapes the slowest official templates run on every message: `a ~ b ~ c`, `message['key']` where the
// key is often missing (`message['tool_calls'] is defined`), the if/elif chain on `message['role']`, and
// `namespace(found_first=false)`, which some templates build once per tool, message and argument.
import type { Expr, Stmt } from './ast.js';
import { chargeChars } from './budget.js';
import { attrPresence, attrReader, concatStr, getItem } from './ops.js';
import { GLOBALS, type RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { Namespace, Undefined, truthy } from './values.js';
import { invoke, type Ev, type Ex } from './compile-support.js';
import { NO_ARGS } from './compile-calls.js';

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
  if (!(key in Object.prototype)) {
    // A key Object.prototype lacks is on a plain object only as its own property: one keyed read answers.
    return (obj) => {
      if (!isPlainObject(obj)) return getItem(obj, key);
      const value = obj[key];
      return value !== undefined ? value : attribute(obj);
    };
  }
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
  if (!(key in Object.prototype)) {
    return (obj) => {
      if (!isPlainObject(obj)) return !(getItem(obj, key) instanceof Undefined);
      const value = obj[key];
      return value !== undefined ? !(value instanceof Undefined) : attribute(obj);
    };
  }
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
 * `d.get(key)` and `d.get(key, default)` on a plain-object dict: the key's value, else the default (None), as
 * dict.get gives, without the argument list and the method lookup of a general call. Any other receiver (a Map, a
 * str, an Undefined) goes to the general method call `method`, which evaluates the arguments itself.
 */
export function dictGetCall(obj: Ev, args: readonly Ev[], method: (s: RenderState, f: Frame, self: unknown) => unknown): Ev {
  const key = args[0]!;
  const fallback = args.length > 1 ? args[1]! : null;
  return (s, f) => {
    const self = obj(s, f);
    if (!isPlainObject(self)) return method(s, f, self);
    const k = key(s, f);
    const otherwise = fallback === null ? null : fallback(s, f);
    if (typeof k === 'string' && hasOwnProperty.call(self, k)) {
      const value = self[k];
      if (value !== undefined) return value;
    }
    return otherwise;
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

/** What the switch needs from the compiler: the closures the plain if statement would have built. */
export interface BranchCompiler {
  expr(node: Expr): Ev;
  block(body: Stmt[]): Ex;
}

/**
 * A key naming an expression that reads a value without side effects (a name, then attributes and constant
 * subscripts): evaluating it again between tests gives the same value. Null for anything else.
 */
function readKey(node: Expr): string | null {
  switch (node.k) {
    case 'name':
      return `n:${node.name}`;
    case 'getattr': {
      const obj = readKey(node.obj);
      return obj === null ? null : `${obj}.${node.attr}`;
    }
    case 'getitem': {
      const obj = readKey(node.obj);
      const key = node.arg.k === 'const' ? node.arg.value : undefined;
      if (obj === null || !(typeof key === 'string' || (typeof key === 'number' && Number.isInteger(key)))) return null;
      return `${obj}[${JSON.stringify(key)}]`;
    }
    default:
      return null;
  }
}

/** The string constants `test` compares one read against (`x == 'a'`, `x in ['a', 'b']`, joined by `or`), with that read. */
function choices(test: Expr): { subject: Expr; key: string; values: string[] } | null {
  if (test.k === 'or') {
    const left = choices(test.left);
    const right = choices(test.right);
    if (left === null || right === null || left.key !== right.key) return null;
    return { subject: left.subject, key: left.key, values: [...left.values, ...right.values] };
  }
  if (test.k !== 'compare' || test.ops.length !== 1) return null;
  const key = readKey(test.first);
  if (key === null) return null;
  const [op, right] = test.ops[0]!;
  if (op === '==' && right.k === 'const' && typeof right.value === 'string') return { subject: test.first, key, values: [right.value] };
  if (op === 'in' && (right.k === 'list' || right.k === 'tuple') && right.items.length > 0) {
    const values: string[] = [];
    for (const item of right.items) {
      if (item.k !== 'const' || typeof item.value !== 'string') return null;
      values.push(item.value);
    }
    return { subject: test.first, key, values };
  }
  return null;
}

/**
 * `{% if x == 'a' %}…{% elif x == 'b' or x == 'c' %}…{% elif x in ['d', 'e'] %}…{% else %}…{% endif %}` over one
 * side-effect-free read: x is read once and, when it is a str, its branch found in a table (a str equals a str
 * constant only when identical, and the first matching branch wins, as the chain's order gives). Any other value
 * (Markup, Undefined, numbers) runs the tests one by one, as the plain chain does. Null when the chain has another
 * shape or fewer than two tests; a test of another shape after the first ends the switch and runs, with the rest of
 * the chain, as its else. Each test and body is compiled in the plain chain's order.
 */
export function ifSwitch(stmt: Extract<Stmt, { k: 'if' }>, compiler: BranchCompiler): Ex | null {
  const arms: Array<{ test: Expr; body: Stmt[]; values: string[] }> = [];
  let key: string | null = null;
  let subjectNode: Expr | null = null;
  let at: Stmt = stmt;
  let rest: Stmt[] = [];
  for (;;) {
    const found = at.k === 'if' ? choices(at.test) : null;
    if (at.k !== 'if' || found === null || (key !== null && found.key !== key)) {
      // A test of another shape ends the switch: it and what follows run as the last branch's else.
      if (arms.length === 0) return null;
      rest = [at];
      break;
    }
    key = found.key;
    subjectNode ??= found.subject;
    arms.push({ test: at.test, body: at.body, values: found.values });
    if (at.otherwise.length === 1 && at.otherwise[0]!.k === 'if') at = at.otherwise[0]!;
    else {
      rest = at.otherwise;
      break;
    }
  }
  if (arms.length < 2 || subjectNode === null) return null;
  const subject = compiler.expr(subjectNode);
  const compiled = arms.map((arm) => ({ test: compiler.expr(arm.test), body: compiler.block(arm.body), values: arm.values }));
  const otherwise = compiler.block(rest);
  const table = new Map<string, Ex>();
  for (const arm of compiled) for (const value of arm.values) if (!table.has(value)) table.set(value, arm.body);
  return (s, f) => {
    const v = subject(s, f);
    if (typeof v === 'string') return (table.get(v) ?? otherwise)(s, f);
    for (let i = 0; i < compiled.length; i++) {
      const t = compiled[i]!.test(s, f);
      if (t === true || (t !== false && truthy(t))) return compiled[i]!.body(s, f);
    }
    return otherwise(s, f);
  };
}

const NAMESPACE = GLOBALS.get('namespace');

/**
 * `namespace(a=x, b=y)` with keyword arguments only, where the template binds no `namespace` of its own: the values
 * go straight into the Namespace, without the keyword object and entry list of a general call. When the name is not
 * the builtin at run time (a render variable called `namespace`), it is called as the general call would call it.
 * Null for other shapes.
 */
export function namespaceCall(node: Extract<Expr, { k: 'call' }>, compile: (e: Expr) => Ev): Ev | null {
  if (node.fn.k !== 'name' || node.fn.name !== 'namespace' || node.args.length > 0 || node.dynArgs || node.dynKwargs) return null;
  const names = node.kwargs.map(([name]) => name);
  const values = node.kwargs.map(([, value]) => compile(value));
  const callee = compile(node.fn);
  return (s: RenderState, f) => {
    const fn = callee(s, f);
    if (fn === NAMESPACE) {
      const ns = new Namespace();
      for (let i = 0; i < values.length; i++) ns.attrs.set(names[i]!, values[i]!(s, f));
      return ns;
    }
    // The general call: keyword arguments in order, then the call (an unset name fails as an Undefined call).
    const kwargs: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < values.length; i++) kwargs[names[i]!] = values[i]!(s, f);
    return invoke(fn, NO_ARGS, kwargs);
  };
}

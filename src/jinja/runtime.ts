// Per-render state, the loop object and the template globals.
import { Budget, chargeItems, type RenderLimits } from './budget.js';
import { MAX_RANGE, LimitError, PyError, RaisedError, typeError } from './errors.js';
import { AttrObject } from './ops.js';
import { pyEq } from './ops.js';
import { newCycler } from './cycler.js';
import { pythonBinder } from './python-call.js';
import { pyStr } from './repr.js';
import { localFields, strftime, utcFields } from './strftime.js';
import type { Frame } from './scope.js';
import { Callable, MISSING, Namespace, Undefined, buildDict, dictEntries, isDict, keywordNames, pyTypeName, type CallFn } from './values.js';

export class RenderState {
  out = '';
  /** The root scope's values by the slot the compiler gave each name (see RootSlots): `root.slots`. */
  readonly slots: unknown[];
  /** > 0 while rendering into a capture buffer (macro, set block, filter block): spans are not recorded there. */
  capture = 0;
  depth = 0;
  iterations = 0;
  /** Macro calls so far (reuse.ts weighs a block's run by its iterations and calls). */
  calls = 0;
  /** > 0 while a reusable block runs to be kept: blocks inside it are not keyed again. */
  reusing = 0;
  readonly spans: Array<[number, number]> = [];
  readonly budget: Budget;
  constructor(
    readonly now: Date | undefined,
    readonly limits: Readonly<RenderLimits>,
    /** The render's variables over the globals: where a name no template statement binds is looked up. */
    readonly root: Frame,
    /** Whether blocks may give the text an earlier render made from the same inputs (reuse.ts). */
    readonly reuse = true,
  ) {
    this.budget = new Budget(limits.buildBytes, limits.scanItems);
    this.slots = root.slots!;
  }

  private limitsText: string | null = null;
  /** The limits as text, the start of every reuse key: a text made under other limits is not given (reuse.ts). */
  limitsKey(): string {
    if (this.limitsText === null) {
      // Every limit (resolveLimits lays them out in one order), so one added later is in the key too.
      this.limitsText = `${Object.values(this.limits).join(',')};`;
    }
    return this.limitsText;
  }

  checkOutput(): void {
    if (this.out.length > this.limits.outputChars) throw new LimitError(`output exceeds ${this.limits.outputChars} characters (limits.outputChars)`);
  }

  addSpan(start: number, end: number): void {
    if (this.spans.length >= this.limits.generationSpans) {
      throw new LimitError(`more than ${this.limits.generationSpans} generation spans (limits.generationSpans)`);
    }
    this.spans.push([start, end]);
  }
}

export class LoopContext extends AttrObject {
  index0 = -1;
  private lastChanged: unknown = MISSING;
  constructor(
    readonly items: unknown[],
    readonly depth0: number,
    readonly recurse: CallFn | null,
  ) {
    super();
  }

  get pyClass(): string {
    return 'LoopContext';
  }

  get pyModule(): string {
    return 'jinja2.runtime';
  }

  pyRepr(): string {
    return `<LoopContext ${this.index0 + 1}/${this.items.length}>`;
  }

  override attr(name: string): unknown {
    const i = this.index0;
    const n = this.items.length;
    switch (name) {
      case 'index':
        return i + 1;
      case 'index0':
        return i;
      case 'revindex':
        return n - i;
      case 'revindex0':
        return n - i - 1;
      case 'first':
        return i === 0;
      case 'last':
        return i === n - 1;
      case 'length':
        return n;
      case 'depth':
        return this.depth0 + 1;
      case 'depth0':
        return this.depth0;
      case 'previtem':
        return i > 0 ? this.items[i - 1] : new Undefined('previtem', undefined, 'there is no previous item');
      case 'nextitem':
        return i + 1 < n ? this.items[i + 1] : new Undefined('nextitem', undefined, 'there is no next item');
      case 'cycle':
        return this.cycle(i);
      case 'changed':
        return this.changed();
    }
    return MISSING;
  }

  // The two callables are built in methods of their own: a closure created inside attr() would make V8 allocate a
  // context for attr's locals on every call, `loop.index0` included.
  private cycle(i: number): Callable {
    return new Callable('cycle', (args) => {
      if (args.length === 0) throw typeError('no items for cycling given');
      return args[i % args.length];
    });
  }

  private changed(): Callable {
    return new Callable('changed', (args) => {
      const value = args.length === 1 ? args[0] : args;
      if (this.lastChanged === MISSING || !pyEq(value, this.lastChanged)) {
        this.lastChanged = value;
        return true;
      }
      return false;
    });
  }
}

/** The render's clock, and what strftime_now gave the template (its text depends on when it ran if they show). */
export interface RenderClock {
  now: Date | undefined;
  readings: string[];
}

/** Set for the duration of a render so strftime_now can read the render's clock. */
let activeClock: RenderClock | undefined;
export function withClock<T>(clock: RenderClock, fn: () => T): T {
  const saved = activeClock;
  activeClock = clock;
  try {
    return fn();
  } finally {
    activeClock = saved;
  }
}

function rangeArg(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  throw typeError(`'${pyTypeName(value)}' object cannot be interpreted as an integer`);
}

const bindSafeRange = pythonBinder({ kind: 'function', signature: 'safe_range(*args)', implicit: 0 });

function pyRange(args: unknown[], kwargs: Record<string, unknown> | null): number[] {
  // jinja2's sandbox wraps range in safe_range(*args), which Python names when it refuses a keyword.
  bindSafeRange(args, kwargs);
  if (args.length === 0) throw typeError('range expected at least 1 argument, got 0');
  if (args.length > 3) throw typeError(`range expected at most 3 arguments, got ${args.length}`);
  const [start, stop, step] =
    args.length === 1 ? [0, rangeArg(args[0]), 1] : [rangeArg(args[0]), rangeArg(args[1]), args.length > 2 ? rangeArg(args[2]) : 1];
  if (step === 0) throw new PyError('ValueError', 'range() arg 3 must not be zero');
  const count = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  if (count > MAX_RANGE) {
    throw new LimitError(`Range too big. The sandbox blocks ranges larger than MAX_RANGE (${MAX_RANGE}).`, 'OverflowError');
  }
  chargeItems(count);
  const out = new Array<number>(count);
  for (let k = 0; k < count; k++) out[k] = start + k * step;
  return out;
}

function kwEntries(args: unknown[], kwargs: Record<string, unknown> | null): Array<[unknown, unknown]> {
  if (args.length > 1) throw typeError(`dict expected at most 1 argument, got ${args.length}`);
  const entries: Array<[unknown, unknown]> = [];
  for (const a of args) {
    if (isDict(a)) entries.push(...dictEntries(a));
    else if (Array.isArray(a)) for (const pair of a) entries.push([(pair as unknown[])[0], (pair as unknown[])[1]]);
    else throw typeError(`'${pyTypeName(a)}' object is not iterable`);
  }
  if (kwargs) for (const key of keywordNames(kwargs)) entries.push([key, kwargs[key]]);
  return entries;
}

/** The template globals: what a name reads when neither the render's variables nor the template set it. */
export const GLOBALS = new Map<string, unknown>();
GLOBALS.set('range', new Callable('range', (args, kwargs) => pyRange(args, kwargs), 'builtin_function_or_method'));
GLOBALS.set('namespace', new Callable('namespace', (args, kwargs) => {
  // `namespace(a=1, b=2)` written out is built by compile-shapes.ts's namespaceCall without calling this.
  const ns = new Namespace();
  for (const [k, v] of kwEntries(args, kwargs)) ns.attrs.set(pyStr(k), v);
  return ns;
}));
GLOBALS.set('dict', new Callable('dict', (args, kwargs) => buildDict(kwEntries(args, kwargs)), 'builtin_function_or_method'));
/**
 * A global that is a Python function: its arguments are bound as Python binds them (python-call.ts) before `call`.
 * `implicit`: 1 for a method's `self`.
 */
function pythonFunction(signature: string, call: CallFn, implicit = 0): CallFn {
  const bind = pythonBinder({ kind: 'function', signature, implicit });
  return (args, kwargs) => call(bind(args, kwargs), null);
}

// transformers defines these two as `raise_exception(message)` and `strftime_now(format)`.
GLOBALS.set('raise_exception', new Callable('raise_exception', pythonFunction('raise_exception(message)', (args) => {
  throw new RaisedError(pyStr(args[0]));
})));
GLOBALS.set('strftime_now', new Callable('strftime_now', pythonFunction('strftime_now(format)', (args) => {
  const fmt = pyStr(args[0]);
  const now = activeClock?.now;
  const reading = strftime(fmt, now ? utcFields(now) : localFields(new Date()));
  // Bounded: a template calling it in a loop keeps only the first few (the date it writes is among them).
  if (activeClock && activeClock.readings.length < 16) activeClock.readings.push(reading);
  return reading;
})));
GLOBALS.set('cycler', new Callable('cycler', (args, kwargs) => newCycler(args, kwargs)));
GLOBALS.set('joiner', new Callable('joiner', pythonFunction('Joiner.__init__(self, sep=)', (args) => {
  const sep = args.length > 0 ? pyStr(args[0]) : ', ';
  let used = false;
  return new Callable('joiner', () => {
    if (used) return sep;
    used = true;
    return '';
  });
}, 1)));

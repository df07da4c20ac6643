// The per-render budget: every value a template builds is paid for before it is allocated, so a hostile template
// fails with a one-line TEMPLATE_LIMIT error instead of exhausting the heap.
import { ChatfmtError } from '../errors.js';
import { LimitError } from './errors.js';

/** Safety limits of one render. Real templates stay far below every default. */
export interface RenderLimits {
  /** Characters of rendered text (also per capture buffer: macro, set block, filter block). */
  outputChars: number;
  /**
   * Estimated bytes of every value the template builds, summed over the render (2 per string character, 8 per list
   * item, 1 per 8 bits of a big integer), charged before the value is allocated.
   */
  buildBytes: number;
  /** For-loop iterations, summed over the render. */
  loopIterations: number;
  /**
   * Items read by operations that visit a whole value without building one as large (`in`, `==` and ordering of
   * lists and dicts, `sum`, `min`, `max`, `select`, `map`, `unique`, list `count` and `index`), summed over the
   * render. A string read by native code (`in`, `==`, `length`, string methods) counts one item per 32 characters.
   * Without it a loop could repeat such a read until the process hangs: it builds nothing for buildBytes to stop.
   */
  scanItems: number;
  /** Nested macro / caller / recursive-loop calls. */
  callDepth: number;
  /**
   * Macro / caller / recursive-loop calls, summed over the render: a macro calling itself twice at each of 40 levels
   * stays within callDepth yet makes 2^40 calls, with no loop or value to pay for them.
   */
  calls: number;
  /** `{% generation %}` spans recorded. */
  generationSpans: number;
}

export const DEFAULT_LIMITS: Readonly<RenderLimits> = Object.freeze({
  outputChars: 64 * 1024 * 1024,
  buildBytes: 256 * 1024 * 1024,
  loopIterations: 10_000_000,
  scanItems: 100_000_000,
  callDepth: 200,
  calls: 10_000_000,
  generationSpans: 100_000,
});

export const BYTES_PER_CHAR = 2;
export const BYTES_PER_ITEM = 8;

/** Limits with a caller's overrides; each must be a non-negative number. Without any, the shared frozen defaults. */
export function resolveLimits(overrides: Partial<RenderLimits> | undefined): Readonly<RenderLimits> {
  if (!overrides) return DEFAULT_LIMITS;
  const limits: RenderLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof RenderLimits>) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value >= 0)) throw new ChatfmtError('INPUT_INVALID', `limits.${key} must be a non-negative number`);
    limits[key] = value;
  }
  return limits;
}

/** Characters of a string read by native code that cost as much as one item read by the interpreter. */
const CHARS_PER_SCAN_ITEM = 32;
/** Strings shorter than this are read for free: the charge would cost more than the read. */
export const FREE_SCAN_CHARS = 256;

export class Budget {
  private left: number;
  private scansLeft: number;
  constructor(readonly limit: number, readonly scanLimit: number) {
    this.left = limit;
    this.scansLeft = scanLimit;
  }

  charge(bytes: number): void {
    // NaN and Infinity (a width no engine could allocate) fail too.
    if (!((this.left -= bytes) >= 0)) {
      throw new LimitError(`the template builds more than ${this.limit} bytes of values (limits.buildBytes)`);
    }
  }

  scan(items: number): void {
    if (!((this.scansLeft -= items) >= 0)) {
      throw new LimitError(`the template reads more than ${this.scanLimit} items of values (limits.scanItems)`);
    }
  }
}

/** The budget of the render in progress; renders are synchronous, so one slot is enough (nested renders save it). */
let active: Budget | null = null;

export function withBudget<T>(budget: Budget, fn: () => T): T {
  const saved = active;
  active = budget;
  try {
    return fn();
  } finally {
    active = saved;
  }
}

/** Pays for a value about to be built. Outside a render (pythonJsonDumps, method calls from library code) it is free. */
export function charge(bytes: number): void {
  if (active !== null) active.charge(bytes);
}

export function chargeChars(chars: number): void {
  if (active !== null) active.charge(chars * BYTES_PER_CHAR);
}

export function chargeItems(items: number): void {
  if (active !== null) active.charge(items * BYTES_PER_ITEM);
}

/** Pays for reading `items` list or dict items (or a generator's) in one operation. */
export function scanItems(items: number): void {
  if (active !== null) active.scan(items);
}

/** Pays for native code reading a string of `chars` characters; short strings are free. */
export function scanChars(chars: number): void {
  if (chars >= FREE_SCAN_CHARS && active !== null) active.scan(Math.ceil(chars / CHARS_PER_SCAN_ITEM));
}

/** Pays for a string result after it was built, for operations whose result is a bounded multiple of their input. */
export function charged<T extends string | unknown[]>(value: T): T {
  if (active !== null) active.charge(value.length * (typeof value === 'string' ? BYTES_PER_CHAR : BYTES_PER_ITEM));
  return value;
}

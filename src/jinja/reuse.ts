// Reusing a block's output across renders: a macro call, or a loop at the template's top level, whose inputs equal
// those of an earlier run gives that run's text instead of running again. Agent datasets and agent clients send the
// same tools with every conversation, and turning them into a prompt (gpt-oss's TypeScript namespace, Qwen3-Coder's
// XML) is a large share of a render. The key is the inputs' content, written out exactly: anything whose behaviour
// a key cannot capture (a namespace, a loop object, a cycler, a bound method, strftime_now, a generator) makes the
// block run as usual.
import { captureRun } from './compile-support.js';
import { GLOBALS, type RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import type { MacroCallable } from './compile-macro.js';
import { Callable, MISSING, Markup, PyFloat, Undefined, isGroup, isTuple } from './values.js';

/** Globals whose result depends only on their arguments (strftime_now reads the clock: not here). */
const PURE_GLOBALS = new Set(['range', 'namespace', 'dict', 'raise_exception', 'cycler', 'joiner']);
/**
 * Keys and texts longer than this are not kept: a compiled template lives as long as its cache entry, so a block holds
 * at most ENTRIES of each (~2 MB), whatever a request sends. Agent clients' tool lists are well under it (Claude
 * Code's 16 tools: 76 K characters).
 */
const MAX_CHARS = 1 << 18;
const MAX_DEPTH = 100;
/** Outputs kept per block: a client alternating between a few tool sets still finds each. */
const ENTRIES = 4;
/**
 * A run is kept only if it did at least one unit of work (a loop iteration or a macro call) per this many characters
 * of its key: writing the key costs about a character's worth of a unit each, so a loop that only prints its items'
 * `tojson` (Qwen3's and GLM's tools) is cheaper to run again than to key.
 */
const KEY_CHARS_PER_WORK = 64;
/** After this many runs that found nothing, a block that found less often than it missed stops trying. */
const PATIENCE = 8;
/**
 * A block that stopped tries again after this many runs: what a gateway's first requests bring (different clients'
 * tools) says little about the traffic after them. At most PATIENCE keys per this many runs: under 1%.
 */
const RETRY_AFTER = 1024;

let nextId = 0;

/**
 * Plain JSON values handed over as never changing (shareJson deep-froze them), each with a key text of its own:
 * 'S', a number no other shared value has, ';'. The same value is always the same data, so a key holding one is a
 * few characters, not the value written out. An equal value that was not shared is written out instead (another key:
 * the block runs once more and keeps that text too).
 */
const sharedKeys = new WeakMap<object, string>();
let nextShared = 0;

/**
 * Deep-freezes `value` and lets block reuse key it by identity from then on: a caller that hands the same data to
 * many renders (the one tool list every row of an agent dataset carries) has it keyed in constant time instead of
 * written out by each render, so even a block that only prints it (Qwen3's and GLM's tools loops) is worth keeping.
 * Takes only plain JSON data within the key limit (what JSON.parse returns); returns whether it took `value`.
 */
export function shareJson(value: object): boolean {
  if (sharedKeys.has(value)) return true;
  if (!isPlainJson(value)) return false;
  deepFreeze(value);
  sharedKeys.set(value, `S${nextShared++};`);
  return true;
}

/** Freezes plain JSON containers all the way down (isPlainJson has bounded the depth). */
function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const item of Object.values(value)) if (item !== null && typeof item === 'object') deepFreeze(item);
}

/** One block's reuse: the names it reads from outside, and the texts of its last few distinct inputs. */
export class Reuse {
  readonly id = nextId++;
  private readonly texts = new Map<string, string>();
  private hits = 0;
  private misses = 0;
  private off = false;
  /** Runs since the block stopped being keyed. */
  private skipped = 0;

  constructor(
    /** Every name the block mentions but does not bind before it runs; read in the defining scope at each run. */
    readonly names: readonly string[],
    readonly slots: readonly number[],
  ) {}

  /**
   * Whether this run may look for a kept text (not inside another reusable block's run, which is keyed whole); while
   * the block is stopped, it counts the run towards trying again.
   */
  usable(s: RenderState): boolean {
    if (this.off && ++this.skipped >= RETRY_AFTER) {
      this.off = false;
      this.hits = this.misses = this.skipped = 0;
    }
    return !this.off && s.reuse && s.reusing === 0;
  }

  /**
   * The key of a run in scope `f` with these inputs, or null (a miss) when one of them cannot be keyed. The render's
   * limits start it: a text another render made under higher limits is not one this render may give.
   */
  keyOf(s: RenderState, f: Frame, inputs: readonly unknown[]): string | null {
    const writer = new KeyWriter(s.limitsKey());
    if (!writer.names(this, f) || !writer.values(inputs)) {
      this.missed();
      return null;
    }
    return writer.text;
  }

  find(key: string): string | undefined {
    const text = this.texts.get(key);
    if (text === undefined) return undefined;
    this.hits++;
    this.texts.delete(key);
    this.texts.set(key, text);
    return text;
  }

  /** Keeps the text a run made; `work` is what the run did (see KEY_CHARS_PER_WORK). */
  keep(key: string, text: string, work: number): void {
    this.missed();
    if (this.off || work * KEY_CHARS_PER_WORK < key.length || text.length > MAX_CHARS) return;
    this.texts.set(key, text);
    if (this.texts.size > ENTRIES) this.texts.delete(this.texts.keys().next().value!);
  }

  private missed(): void {
    this.misses++;
    if (this.misses >= PATIENCE && this.hits < this.misses) {
      this.off = true;
      this.texts.clear();
    }
  }
}

/**
 * A reusable block's text: kept from an earlier run with the same key, or made now by `run` (which writes to s.out)
 * in a buffer of its own, and kept. The buffer counts as a capture (no generation spans recorded), which a reusable
 * loop does not notice: one holding a generation block is not reusable.
 */
export function reusedText(s: RenderState, reuse: Reuse, key: string, run: () => void): string {
  const kept = reuse.find(key);
  if (kept !== undefined) return kept;
  // What the run does: loop iterations and macro calls, so a block that costs less than its key stops being keyed.
  const work = s.iterations + s.calls;
  s.reusing++;
  let text: string;
  try {
    text = captureRun(s, run);
  } finally {
    s.reusing--;
  }
  reuse.keep(key, text, s.iterations + s.calls - work);
  return text;
}

/**
 * Writes values as a string that tells apart everything a template can: each type has its own mark, strings are
 * JSON-quoted (so self-delimiting), numbers keep -0, dicts keep their order and kind, tuples are not lists. A macro
 * is its definition and the values of the names it reads where it was defined.
 */
class KeyWriter {
  constructor(public text: string) {}
  private depth = 0;
  /** Macros being written: a recursive macro's own name is written as a reference. */
  private readonly macros: unknown[] = [];

  names(reuse: Reuse, f: Frame): boolean {
    const { names, slots } = reuse;
    for (let i = 0; i < names.length; i++) if (!this.input(f.get(names[i]!, slots[i]!))) return false;
    return true;
  }

  values(values: readonly unknown[]): boolean {
    for (let i = 0; i < values.length; i++) if (!this.input(values[i])) return false;
    return this.text.length <= MAX_CHARS;
  }

  /** One input: data as JSON gives it (tools, messages) natively, anything else by the walk below. */
  private input(v: unknown): boolean {
    // JSON.stringify is several times faster than the walk. 'J' marks its text, which no other value's starts with.
    if (v !== null && typeof v === 'object') {
      const shared = sharedKeys.get(v);
      if (shared !== undefined) {
        this.text += shared;
        return true;
      }
      if (isPlainJson(v)) {
        this.text += `J${JSON.stringify(v)}`;
        return true;
      }
    }
    return this.value(v);
  }

  private value(v: unknown): boolean {
    switch (typeof v) {
      case 'string':
        // A string past the limit is not copied into a key only to be refused.
        if (v.length > MAX_CHARS) return false;
        this.text += JSON.stringify(v);
        return true;
      case 'number':
        this.text += Object.is(v, -0) ? 'n-0;' : `n${v};`;
        return true;
      case 'boolean':
        this.text += v ? 'T' : 'F';
        return true;
      case 'undefined':
        this.text += 'U';
        return true;
      case 'bigint':
        this.text += `b${v};`;
        return true;
      case 'symbol':
        if (v !== MISSING) return false;
        this.text += 'M';
        return true;
      case 'object':
        if (v === null) {
          this.text += 'N';
          return true;
        }
        if (this.text.length > MAX_CHARS || this.depth >= MAX_DEPTH) return false;
        this.depth++;
        try {
          return this.object(v);
        } finally {
          this.depth--;
        }
      default:
        return false;
    }
  }

  private object(v: object): boolean {
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype || isGroup(v)) return false;
      this.text += isTuple(v) ? '(' : '[';
      for (let i = 0; i < v.length; i++) if (!this.value(v[i])) return false;
      this.text += ']';
      return true;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      this.text += proto === null ? '{0' : '{';
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        this.text += JSON.stringify(key);
        if (!this.value((v as Record<string, unknown>)[key])) return false;
      }
      this.text += '}';
      return true;
    }
    if (v instanceof Map) {
      this.text += '<';
      for (const [key, value] of v) if (!this.value(key) || !this.value(value)) return false;
      this.text += '>';
      return true;
    }
    if (v instanceof PyFloat) {
      this.text += Object.is(v.value, -0) ? 'f-0;' : `f${v.value};`;
      return true;
    }
    if (v instanceof Markup) {
      this.text += `m${JSON.stringify(v.text)}`;
      return true;
    }
    if (v instanceof Undefined) {
      // Its text and its error depend on these alone when it names no object.
      if (v.obj !== MISSING || typeof v.name !== 'string') return false;
      this.text += `u${JSON.stringify(v.name)}${JSON.stringify(v.hint ?? null)}${v.exc};`;
      return true;
    }
    if (v instanceof Callable) return this.callable(v);
    return false;
  }

  private callable(v: Callable): boolean {
    if (v.kind !== 'Macro') {
      if (!PURE_GLOBALS.has(v.name) || GLOBALS.get(v.name) !== v) return false;
      this.text += `g${v.name};`;
      return true;
    }
    const { reuse, frame } = v as MacroCallable;
    if (reuse === null) return false;
    if (this.macros.includes(v)) {
      this.text += `r${reuse.id};`;
      return true;
    }
    this.macros.push(v);
    this.text += `d${reuse.id}(`;
    const written = this.names(reuse, frame);
    this.macros.pop();
    this.text += ')';
    return written;
  }
}

/**
 * Whether JSON.stringify writes v exactly as a key must: only strings, finite numbers other than -0 (an integral
 * float is a PyFloat, not a number), booleans, null, and arrays and Object-prototype objects of them, none missing or
 * undefined (JSON.stringify would write null for a missing item and skip an undefined member), not too deep, and
 * not larger than a key may be (what is past it is never written out).
 */
function isPlainJson(v: object): boolean {
  plainBudget = MAX_CHARS;
  return isPlainContainer(v, 0);
}

/** Characters (about) the value being checked may still hold. */
let plainBudget = 0;

function isPlainContainer(v: object, depth: number): boolean {
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype || isTuple(v)) return false;
    for (let i = 0; i < v.length; i++) if (!isPlainItem(v[i], depth)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const key in v) {
    plainBudget -= key.length;
    if (!isPlainItem((v as Record<string, unknown>)[key], depth)) return false;
  }
  return true;
}

function isPlainItem(item: unknown, depth: number): boolean {
  if (--plainBudget < 0) return false;
  switch (typeof item) {
    case 'string':
      plainBudget -= item.length;
      return plainBudget >= 0;
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(item) && !Object.is(item, -0);
    case 'object':
      return item === null || isPlainContainer(item, depth + 1);
    default:
      return false;
  }
}

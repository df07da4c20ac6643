import { CompiledTemplate } from './compile.js';

/**
 * Compiled response templates kept by their JSON text. `parse_response(text, template)` validates and compiles the
 * template on every call (transformers does too, though Python's `re` cache spares it the regex compilation); for
 * short completions that setup is most of the call, and callers hand the same template again and again.
 *
 * The key is the template's JSON, and the entry is compiled from that JSON re-read, never from the caller's object:
 * an entry is then a function of its key alone, so a template mutated after a call, or another object with the same
 * JSON, can never see a stale or foreign compilation. Only JSON-exact templates are cached (anything JSON would
 * change or drop, such as undefined, -0, NaN, holes, class instances, is compiled afresh each time), so equal keys
 * mean templates the validator cannot tell apart.
 */
const MAX_ENTRIES = 64;
/** Templates longer than this as JSON are compiled per call: the cache holds at most MAX_ENTRIES × this many chars. */
const MAX_KEY_CHARS = 64 * 1024;
/** Nesting past this is compiled per call rather than walked (templates are a few levels deep). */
const MAX_DEPTH = 64;

const cache = new Map<string, CompiledTemplate>();
/**
 * The last compilation handed to each template object. Most callers pass the same object every time; comparing it
 * with the JSON copy the compilation was made from is cheaper than writing and hashing its JSON again.
 */
const byObject = new WeakMap<object, CompiledTemplate>();

/** The compiled template for a raw template value, shared with earlier calls that passed the same JSON. */
export function cachedTemplate(template: Record<string, unknown>): CompiledTemplate {
  const last = byObject.get(template);
  if (last && sameJson(template, last.source, 0)) return last;
  const compiled = byJson(template);
  byObject.set(template, compiled);
  return compiled;
}

function byJson(template: Record<string, unknown>): CompiledTemplate {
  const key = jsonExact(template, 0) ? JSON.stringify(template) : undefined;
  if (key === undefined || key.length > MAX_KEY_CHARS) return new CompiledTemplate(template);
  let compiled = cache.get(key);
  if (compiled) {
    // Least recently used goes first: re-insert on every hit.
    cache.delete(key);
  } else {
    compiled = new CompiledTemplate(JSON.parse(key) as Record<string, unknown>);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, compiled);
  return compiled;
}

/** How many compiled templates are held (the bound is MAX_ENTRIES). */
export function cachedTemplateCount(): number {
  return cache.size;
}

/**
 * True when `value` is JSON-exact and equal to `copy` (a JSON.parse result) key for key, in the same key order.
 * A compilation made without the cache has the caller's object as its source and never compares equal to a new
 * state of it: that object can be mutated, so such a source is only trusted when it is not the value itself.
 */
function sameJson(value: unknown, copy: unknown, depth: number): boolean {
  if (value === copy) return typeof value !== 'object' || value === null ? jsonExact(value, depth) : false;
  if (typeof value !== 'object' || value === null || typeof copy !== 'object' || copy === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || copy.length !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (!(i in value) || !sameJson(value[i], copy[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(copy)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(value), copyKeys = Object.keys(copy);
  if (keys.length !== copyKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== copyKeys[i] || !sameJson((value as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** True when JSON.parse(JSON.stringify(value)) is a structure equal to `value` in everything the validator reads. */
function jsonExact(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string': case 'boolean': return true;
    case 'number': return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': break;
    default: return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !jsonExact(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const item of Object.values(value)) if (!jsonExact(item, depth + 1)) return false;
  return true;
}

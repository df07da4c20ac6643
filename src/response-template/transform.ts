import { RegionError } from './errors.js';
import { setKey } from './pyjson.js';
import { isDict, pyRepr, pyTypeName } from './python.js';

const WORD = '[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\u200c\\u200d]+';
/** A string that is entirely one placeholder: `{name}` or a dotted path `{content.args}`. */
const PLACEHOLDER = new RegExp(`^\\{(${WORD}(?:\\.${WORD})*)\\}$`, 'u');
const ANY_PLACEHOLDER = new RegExp(`\\{${WORD}(?:\\.${WORD})*\\}`, 'u');

/** Load-time check: the first transform string that mixes a placeholder with literal text, if any. */
export function findInterpolation(transform: unknown): string | null {
  if (typeof transform === 'string') return ANY_PLACEHOLDER.test(transform) && !PLACEHOLDER.test(transform) ? transform : null;
  const children = Array.isArray(transform) ? transform : isDict(transform) ? Object.values(transform) : [];
  for (const child of children) {
    const found = findInterpolation(child);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Rebuilds the transform with placeholders replaced by the looked-up values themselves (same objects, so casting
 * later mutates what the transform placed). Unknown root → KeyError; a missing key or a non-dict step → ValueError.
 */
export function applyTransform(transform: unknown, scope: Record<string, unknown>): unknown {
  if (typeof transform === 'string') {
    const m = PLACEHOLDER.exec(transform);
    return m ? lookup(m[1]!, scope) : transform;
  }
  if (Array.isArray(transform)) return transform.map((item) => applyTransform(item, scope));
  if (isDict(transform)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(transform)) {
      setKey(out, k, applyTransform(v, scope));
    }
    return out;
  }
  return transform;
}

function available(obj: Record<string, unknown>): string {
  return `[${Object.keys(obj).sort().map(pyRepr).join(', ')}]`;
}

function lookup(path: string, scope: Record<string, unknown>): unknown {
  const [root, ...rest] = path.split('.');
  if (!Object.hasOwn(scope, root!)) throw new RegionError('KeyError', `transform placeholder '{${path}}' is not defined. Available: ${available(scope)}`);
  let value = scope[root!];
  for (const key of rest) {
    if (!isDict(value)) throw new RegionError('ValueError', `transform placeholder '{${path}}' cannot index into ${pyTypeName(value)} at '${key}'`);
    if (!Object.hasOwn(value, key)) throw new RegionError('ValueError', `transform placeholder '{${path}}' is missing key '${key}'. Available: ${available(value)}`);
    value = value[key];
  }
  return value;
}

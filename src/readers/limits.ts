// Budgets that keep one hostile row from hanging, crashing or exhausting a validate or convert run.
// The README's "Safety" table lists each with what happens when a row goes over it.

/** Deepest JSON nesting a row may have. Real rows stay under ~30; checks and templates recurse per level. */
export const ROW_MAX_DEPTH = 256;

/** Values (objects, arrays, scalars, keys excluded) one tool `parameters` schema may hold before it is left unchecked. */
export const SCHEMA_MAX_NODES = 10_000;

/** A pattern longer than this is not compiled: the linear engine's automaton grows with the pattern. */
export const SCHEMA_MAX_PATTERN_LENGTH = 1_000;

/**
 * How deep `value` nests (a scalar is 0, `[]` and `{}` are 1), counted without recursion, stopping once past `limit`
 * so a hostile row costs at most the values up to that depth. Returns a number > limit when over.
 */
export function nestingDepth(value: unknown, limit = ROW_MAX_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    const children = current instanceof Map ? current.values() : Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, level]);
  }
  return deepest;
}

/** The one message both commands give for a row past ROW_MAX_DEPTH. */
export function tooDeepMessage(limit = ROW_MAX_DEPTH): string {
  return `JSON nests deeper than ${limit} levels; the row is not checked or converted`;
}

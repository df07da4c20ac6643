/** A JSON object (not null, not an array): what rows, tools and arguments must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A fixed lookup table that untrusted keys may index: a null-prototype copy, so that "constructor" or "toString" (a
 * dataset's turn tag, a tool's type name) finds nothing rather than an Object.prototype method.
 */
export function lookupTable<T>(entries: Record<string, T>): Readonly<Record<string, T | undefined>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

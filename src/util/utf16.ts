// UTF-16 code units: where a string may be cut without splitting a surrogate pair.

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Text shortened to at most `max` code units for quoting in a message, cut before a surrogate pair rather than
 * through it, with how long the whole was: `"…"… (N characters)`. Shorter text is returned as it is.
 */
export function clipForMessage(text: string, max: number, quote: (text: string) => string): string {
  if (text.length <= max) return quote(text);
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${quote(text.slice(0, end))}… (${text.length} characters)`;
}

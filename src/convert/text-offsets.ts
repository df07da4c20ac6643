/** Converts UTF-8 byte offsets of `text` to UTF-16 offsets; a byte inside a character rounds down or up to it. */
export function utf8ToUtf16Index(text: string): { floor(byte: number): number; ceil(byte: number): number } {
  const byteLength = utf8Length(text);
  // charStart[b] = UTF-16 index of the character containing byte b; charStart[byteLength] = text.length.
  const charStart = new Int32Array(byteLength + 1);
  const charEnd = new Int32Array(byteLength + 1);
  let byte = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    const units = code >= 0x10000 ? 2 : 1;
    for (let k = 0; k < width; k++) {
      charStart[byte + k] = i;
      charEnd[byte + k] = k === 0 ? i : i + units;
    }
    byte += width;
    i += units;
  }
  charStart[byteLength] = text.length;
  charEnd[byteLength] = text.length;
  return {
    floor: (b) => charStart[b]!,
    ceil: (b) => charEnd[b]!,
  };
}

/** True when [start, end) and [spanStart, spanEnd) share at least one character. */
export function overlaps(start: number, end: number, spanStart: number, spanEnd: number): boolean {
  return start < spanEnd && spanStart < end;
}

/** How offsets into a text are counted: JS string units (default), Unicode code points (Python `str`), UTF-8 bytes. */
export type OffsetUnit = 'utf16' | 'codepoint' | 'byte';
export const offsetUnits: readonly OffsetUnit[] = ['utf16', 'codepoint', 'byte'];

/**
 * Re-counts UTF-16 [start, end) spans of `text` in another unit, in one pass over the text (spans must be sorted by
 * start, as generation spans and training spans are). Python users want code points: `text[start:end]` then works.
 */
export function convertSpans(text: string, spans: ReadonlyArray<readonly [number, number]>, unit: OffsetUnit): Array<[number, number]> {
  if (unit === 'utf16') return spans.map(([start, end]) => [start, end]);
  const points = new Set<number>();
  for (const [start, end] of spans) points.add(start).add(end);
  const sorted = [...points].sort((a, b) => a - b);
  const mapped = new Map<number, number>();
  let unitIndex = 0;
  let counted = 0;
  let k = 0;
  while (k < sorted.length) {
    while (k < sorted.length && sorted[k]! <= unitIndex) mapped.set(sorted[k++]!, counted);
    if (unitIndex >= text.length) break;
    const code = text.codePointAt(unitIndex)!;
    const units = code >= 0x10000 ? 2 : 1;
    counted += unit === 'codepoint' ? 1 : code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    unitIndex += units;
  }
  for (; k < sorted.length; k++) mapped.set(sorted[k]!, counted);
  return spans.map(([start, end]) => [mapped.get(start)!, mapped.get(end)!]);
}

/** The UTF-8 length of a string (a lone surrogate counts 3 bytes, as its U+FFFD replacement does when encoded). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

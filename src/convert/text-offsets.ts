/** Converts UTF-8 byte offsets of `text` to UTF-16 offsets; a byte inside a character rounds down or up to it. */
export function utf8ToUtf16Index(text: string): { floor(byte: number): number; ceil(byte: number): number } {
  const byteLength = Buffer.byteLength(text, 'utf8');
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

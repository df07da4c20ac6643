// Bytes to lines, for the SSE and NDJSON decoders. A network read can end anywhere: inside a UTF-8 sequence, or
// between the `\r` and `\n` of one line break, so both are carried to the next read. Pure: runs in browsers too.

/** Longest line kept while waiting for its end; a backend that never sends a newline cannot grow memory past this. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

export class LineTooLongError extends Error {}

export interface LineDecoder {
  /** The complete lines this chunk ends (without their terminators). */
  push(bytes: Uint8Array): string[];
  /** End of input: the last line, if it had no terminator. */
  flush(): string[];
}

export function createLineDecoder(maxLineChars = MAX_LINE_CHARS): LineDecoder {
  const utf8 = new TextDecoder('utf-8');
  let pending = '';
  // A `\r` ended the previous chunk: a `\n` opening this one belongs to the same break.
  let afterCarriageReturn = false;

  function split(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    if (afterCarriageReturn && text.startsWith('\n')) start = 1;
    afterCarriageReturn = false;
    for (let at = start; at < text.length; at++) {
      const code = text.charCodeAt(at);
      if (code !== 10 && code !== 13) continue;
      lines.push(pending + text.slice(start, at));
      pending = '';
      if (code === 13) {
        if (at + 1 === text.length) afterCarriageReturn = true;
        else if (text.charCodeAt(at + 1) === 10) at++;
      }
      start = at + 1;
    }
    pending += text.slice(start);
    if (pending.length > maxLineChars) throw new LineTooLongError(`a line longer than ${maxLineChars} characters`);
    return lines;
  }

  return {
    push: (bytes) => split(utf8.decode(bytes, { stream: true })),
    flush() {
      const lines = split(utf8.decode());
      if (pending !== '') lines.push(pending);
      pending = '';
      return lines;
    },
  };
}

/** Every line of a byte stream, decoded as it arrives. */
export async function* readLines(body: AsyncIterable<Uint8Array>, maxLineChars?: number): AsyncGenerator<string> {
  const decoder = createLineDecoder(maxLineChars);
  for await (const bytes of body) yield* decoder.push(bytes);
  yield* decoder.flush();
}

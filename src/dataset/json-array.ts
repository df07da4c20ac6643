import type { DatasetRecord } from './jsonl.js';

/**
 * Splits a top-level JSON array into its elements without parsing them, so a multi-GB array streams in
 * constant memory. Only brackets and strings are tracked; each element is validated later by JSON.parse.
 * An element's line is kept only when no other element starts on it: in a minified array every element
 * starts on line 1, and rows are told apart by their index instead.
 */
export async function* splitJsonArray(texts: AsyncIterable<string>, maxRowBytes: number): AsyncGenerator<DatasetRecord> {
  let held: DatasetRecord | undefined;
  let sharedLine = 0;
  for await (const record of elementsOf(texts, maxRowBytes)) {
    if (record.problem?.code === 'ROW_INVALID_JSON' && 'fileLevel' in record) {
      if (held) yield settle(held);
      held = undefined;
      yield record;
      continue;
    }
    if (held && held.line === record.line) sharedLine = record.line;
    if (held) yield settle(held);
    held = record;
  }
  if (held) yield settle(held);

  function settle(record: DatasetRecord): DatasetRecord {
    return record.line === sharedLine ? { ...record, line: 0 } : record;
  }
}

async function* elementsOf(texts: AsyncIterable<string>, maxRowBytes: number): AsyncGenerator<DatasetRecord> {
  type State = 'start' | 'between' | 'element' | 'end';
  let state: State = 'start';
  let line = 1;
  let elementLine = 1;
  let parts: string[] = [];
  let size = 0;
  let overflow = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let trailingReported = false;

  const emit = (): DatasetRecord => {
    const record: DatasetRecord = overflow
      ? { line: elementLine, problem: { code: 'ROW_TOO_LARGE', message: `array element is ${size} characters, over the ${maxRowBytes} limit (--max-row-bytes); skipped` } }
      : { line: elementLine, text: parts.join('') };
    parts = [];
    size = 0;
    overflow = false;
    return record;
  };
  const keep = (text: string, from: number, to: number): void => {
    if (to <= from) return;
    size += to - from;
    if (size > maxRowBytes) {
      overflow = true;
      parts = [];
    } else if (!overflow) parts.push(text.slice(from, to));
  };

  for await (const text of texts) {
    let elementStart = state === 'element' ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) line++;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
          continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
        else if ((c === 0x2c || c === 0x5d) && depth === 0) {
          keep(text, elementStart, i);
          yield emit();
          state = c === 0x2c ? 'between' : 'end';
          elementStart = -1;
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) continue;
      if (state === 'start') {
        if (c !== 0x5b) {
          yield { line, fileLevel: true, problem: { code: 'ROW_INVALID_JSON', message: 'input is neither JSONL nor a JSON array' } };
          return;
        }
        state = 'between';
      } else if (state === 'between') {
        if (c === 0x5d) state = 'end';
        else if (c !== 0x2c) {
          state = 'element';
          elementLine = line;
          elementStart = i;
          depth = 0;
          inString = false;
          escaped = false;
          // Re-examine this character as the first one of the element.
          i--;
        }
      } else if (!trailingReported) {
        trailingReported = true;
        yield { line, fileLevel: true, problem: { code: 'ROW_INVALID_JSON', message: 'unexpected text after the closing ] of the JSON array' } };
      }
    }
    if (state === 'element' && elementStart !== -1) keep(text, elementStart, text.length);
  }
  const finalState = state as State;
  if (finalState === 'element') {
    // Unterminated array: hand over what we have; JSON.parse will say what is wrong with it.
    yield emit();
  }
  if (finalState === 'element' || finalState === 'between') {
    yield { line, fileLevel: true, problem: { code: 'ROW_INVALID_JSON', message: 'JSON array is not closed (missing ])' } };
  }
}

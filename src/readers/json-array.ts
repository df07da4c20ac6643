import type { DatasetRecord } from './jsonl.js';

/**
 * Splits a top-level JSON array into its elements without parsing them, so a multi-GB array streams in
 * constant memory. Only brackets and strings are tracked; each element is validated later by JSON.parse.
 * An element's line is kept only when no other element starts on it: in a minified array every element
 * starts on line 1, and rows are told apart by their index instead.
 */
export async function* splitJsonArray(texts: AsyncIterable<string>, maxRowBytes: number, cut: () => boolean = () => false): AsyncGenerator<DatasetRecord> {
  let held: DatasetRecord | undefined;
  let sharedLine = 0;
  for await (const record of elementsOf(texts, maxRowBytes, cut)) {
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

/** Open brackets are tracked by type up to this depth; past it only the count is kept (memory stays bounded). */
const TRACKED_DEPTH = 1 << 16;

/**
 * A broken element must not swallow the rows after it. Two repairs keep the split in step with the writer's intent:
 * a closer that does not match the innermost opener closes up to the nearest opener of its kind (`[1, 2}` ends the
 * object), and a raw control character inside a string (never valid JSON: the string was not closed) abandons the
 * element until a line that starts a new element at or left of the broken element's own column, as JSONL-style and
 * indented arrays write them. The broken text becomes that element's row, which JSON.parse then reports.
 */
async function* elementsOf(texts: AsyncIterable<string>, maxRowBytes: number, cut: () => boolean): AsyncGenerator<DatasetRecord> {
  type State = 'start' | 'between' | 'element' | 'skipping' | 'end';
  let state: State = 'start';
  let line = 1;
  let column = 0;
  let elementLine = 1;
  let elementColumn = 0;
  let atLineStart = false;
  let parts: string[] = [];
  let size = 0;
  let overflow = false;
  let depth = 0;
  const openers: number[] = [];
  // How many of each opener `openers` holds: a closer with none of its kind open is stray at once, instead of a
  // scan of the whole stack per closer (`[{{{…]]]…` was quadratic: 100k brackets took ~20 s).
  let openBraces = 0;
  let openBrackets = 0;
  const track = (c: number, by: number): void => {
    if (c === 0x7b) openBraces += by;
    else openBrackets += by;
  };
  let inString = false;
  let escaped = false;
  let trailingReported = false;

  const emit = (broken = false): DatasetRecord => {
    const text = parts.join('');
    const record: DatasetRecord = overflow
      ? { line: elementLine, problem: { code: 'ROW_TOO_LARGE', message: `array element is ${size} characters, over the ${maxRowBytes} limit (--max-row-bytes); skipped` } }
      : { line: elementLine, text: broken ? text.replace(/[\s,]+$/, '') : text };
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
  const close = (c: number): void => {
    if (depth === 0) return;
    const want = c === 0x7d ? 0x7b : 0x5b;
    if (depth > TRACKED_DEPTH || openers[openers.length - 1] === want) {
      depth--;
      if (depth < TRACKED_DEPTH) track(openers.pop()!, -1);
      return;
    }
    if ((want === 0x7b ? openBraces : openBrackets) === 0) return; // a stray closer: JSON.parse will name it
    // The scan is as long as the openers it closes, each pushed once: linear over the element.
    const match = openers.lastIndexOf(want);
    depth -= openers.length - match;
    for (let k = match; k < openers.length; k++) track(openers[k]!, -1);
    openers.length = match;
  };

  for await (const text of texts) {
    let elementStart = (state as State) === 'element' || (state as State) === 'skipping' ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        line++;
        column = 0;
        atLineStart = true;
      } else column++;
      if (state === 'element') {
        if (inString) {
          if (c < 0x20) {
            state = 'skipping';
            atLineStart = c === 0x0a;
          }
          else if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
          continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) {
          if (depth++ < TRACKED_DEPTH) {
            openers.push(c);
            track(c, 1);
          }
        } else if ((c === 0x7d || c === 0x5d) && depth > 0) close(c);
        else if ((c === 0x2c || c === 0x5d) && depth === 0) {
          keep(text, elementStart, i);
          yield emit();
          state = c === 0x2c ? 'between' : 'end';
          elementStart = -1;
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) continue;
      if (state === 'skipping') {
        const resync = atLineStart && column - 1 <= elementColumn && (c === 0x7b || c === 0x5b || c === 0x5d);
        atLineStart = false;
        if (!resync) continue;
        keep(text, elementStart, i);
        yield emit(true);
        elementStart = -1;
        state = c === 0x5d ? 'end' : 'between';
        if (state === 'between') {
          i--;
          column--;
        }
        continue;
      }
      atLineStart = false;
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
          elementColumn = column - 1;
          elementStart = i;
          depth = 0;
          openers.length = 0;
          openBraces = 0;
          openBrackets = 0;
          inString = false;
          escaped = false;
          // Re-examine this character as the first one of the element.
          i--;
          column--;
        }
      } else if (!trailingReported) {
        trailingReported = true;
        yield { line, fileLevel: true, problem: { code: 'ROW_INVALID_JSON', message: 'unexpected text after the closing ] of the JSON array' } };
      }
    }
    if ((state === 'element' || state === 'skipping') && elementStart !== -1) keep(text, elementStart, text.length);
  }
  const finalState = state as State;
  if (cut()) return; // the element it cuts and the missing ] are the reader's one truncation issue
  if (finalState === 'element' || finalState === 'skipping') {
    // Unterminated array: hand over what we have; JSON.parse will say what is wrong with it.
    yield emit(finalState === 'skipping');
  }
  if (finalState === 'element' || finalState === 'skipping' || finalState === 'between') {
    yield { line, fileLevel: true, problem: { code: 'ROW_INVALID_JSON', message: 'JSON array is not closed (missing ])' } };
  }
}

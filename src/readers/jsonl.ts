import { isUtf8 } from 'node:buffer';
import { ChatfmtError } from '../errors.js';
import type { DatasetIssueCode } from './issues.js';
import { splitJsonArray } from './json-array.js';
import { openDatasetSource, type DatasetSource, type OpenedSource, type SourceOptions } from './source.js';

export const DEFAULT_MAX_ROW_BYTES = 32 * 1024 * 1024;

/**
 * One row of input: its text, or why the text could not be read. Blank lines are skipped. `line` is the 1-based line
 * where the row starts, 0 where that says nothing (array elements that share a line with another, as in a minified
 * array); `row` is the row's 1-based index, 0 for a problem of the file rather than of a row.
 */
export type DatasetRecord =
  | { line: number; row?: number; text: string; problem?: undefined }
  | { line: number; row?: number; text?: undefined; problem: { code: DatasetIssueCode; message: string }; fileLevel?: boolean };

export interface ReadRecordsOptions extends SourceOptions {
  /** Rows (lines, or array elements) longer than this become ROW_TOO_LARGE issues; memory stays bounded. */
  maxRowBytes?: number;
  /** `auto` (default): a file whose first non-blank byte is `[` is a JSON array, otherwise JSONL. */
  container?: 'auto' | 'jsonl' | 'array';
}

export interface RecordReader extends AsyncIterable<DatasetRecord> {
  readonly source: OpenedSource;
}

/** The same rows as a RecordReader, a read's worth at a time: no async hop per row for callers that take them in bulk. */
export interface RecordBatchReader extends AsyncIterable<DatasetRecord[]> {
  readonly source: OpenedSource;
}

/** Streams the rows of a JSONL file (or JSON array, gzip, stdin) with constant memory and 1-based line numbers. */
export function readDatasetRecords(source: DatasetSource, options: ReadRecordsOptions = {}): RecordReader {
  const batches = readDatasetBatches(source, options);
  return {
    source: batches.source,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches) yield* batch;
    },
  };
}

/**
 * readDatasetRecords' rows in the groups they were read in (the rows a chunk of input completes, at most ~64 K
 * characters of them; never empty): a row at a time cost several async generator hops each.
 */
export function readDatasetBatches(source: DatasetSource, options: ReadRecordsOptions = {}): RecordBatchReader {
  const opened = openDatasetSource(source, options);
  const maxRowBytes = options.maxRowBytes ?? DEFAULT_MAX_ROW_BYTES;
  const container = options.container ?? 'auto';
  return {
    source: opened,
    [Symbol.asyncIterator]: () => {
      const batches = opened.lines ? linesToRecords(opened.lines, maxRowBytes) : recordsFromBytes(opened, maxRowBytes, container);
      return numberRows(batches)[Symbol.asyncIterator]();
    },
  };
}

async function* numberRows(batches: AsyncIterable<DatasetRecord[]>): AsyncGenerator<DatasetRecord[]> {
  let row = 0;
  for await (const batch of batches) {
    for (let i = 0; i < batch.length; i++) {
      const record = batch[i]!;
      record.row = record.problem && record.fileLevel ? 0 : ++row;
    }
    if (batch.length > 0) yield batch;
  }
}

/** One record per batch, for the rare paths that find rows one at a time (JSON arrays, line iterables). */
async function* singles(records: AsyncIterable<DatasetRecord>): AsyncGenerator<DatasetRecord[]> {
  for await (const record of records) yield [record];
}

async function* linesToRecords(lines: AsyncIterable<string>, maxRowBytes: number): AsyncGenerator<DatasetRecord[]> {
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (isBlank(text)) continue;
    if (text.length > maxRowBytes) yield [tooLarge(line, text.length, maxRowBytes)];
    else yield [{ line, text }];
  }
}

async function* recordsFromBytes(opened: OpenedSource, maxRowBytes: number, container: 'auto' | 'jsonl' | 'array'): AsyncGenerator<DatasetRecord[]> {
  const chunks = opened.chunks[Symbol.asyncIterator]();
  // Look at the first non-blank byte to choose between JSONL and a JSON array.
  const held: Buffer[] = [];
  let heldBytes = 0;
  let first = -1;
  // Leading whitespace counts against the row limit like any other bytes: past it, the lines are split as JSONL,
  // which bounds (and reports) an over-long blank line instead of holding it all.
  while (first === -1 && heldBytes <= maxRowBytes) {
    const next = await chunks.next();
    if (next.done) break;
    held.push(next.value);
    heldBytes += next.value.length;
    first = firstNonBlankByte(next.value);
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* held;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const isArray = container === 'array' || (container === 'auto' && first === 0x5b);
  // Input cut short: the row it cuts is part of that one issue, not a row of its own.
  const cut = () => opened.cutShort() !== undefined;
  if (isArray) yield* singles(splitJsonArray(decodeStrict(opened.name, replay(), cut), maxRowBytes, cut));
  else if (container === 'auto' && first === 0x7b) yield* jsonlOrOneObject(replay(), maxRowBytes, cut);
  else yield* splitLines(replay(), maxRowBytes, cut);
  const why = opened.cutShort();
  if (why) yield [{ line: 0, fileLevel: true, problem: { code: 'DATASET_TRUNCATED', message: `${opened.name}: ${why}; the rows before that point were read` } }];
}

/**
 * A file that starts with `{` is JSONL, unless its first line is not JSON and the whole file is one object (a
 * pretty-printed conversation): that is one row, not a wall of per-line errors. Only then is the file held in memory,
 * up to the row size limit.
 */
async function* jsonlOrOneObject(chunks: AsyncIterable<Buffer>, maxRowBytes: number, cut: () => boolean): AsyncGenerator<DatasetRecord[]> {
  const iterator = chunks[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  let size = 0;
  let newlineSeen = false;
  let done = false;
  while (!done && !newlineSeen && size <= maxRowBytes) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      held.push(next.value);
      size += next.value.length;
      newlineSeen = next.value.includes(0x0a);
    }
  }
  const start = Buffer.concat(held);
  const firstLine = newlineSeen ? start.subarray(0, start.indexOf(0x0a)) : start;
  if (newlineSeen && !parsesAsJson(firstLine)) {
    while (!done && size <= maxRowBytes) {
      const next = await iterator.next();
      if (next.done) done = true;
      else {
        held.push(next.value);
        size += next.value.length;
      }
    }
    const whole = Buffer.concat(held);
    if (done && !cut() && size <= maxRowBytes && isUtf8(whole)) {
      const text = whole.toString('utf8').replace(/^\uFEFF/, '');
      if (parsesAsJson(text)) {
        yield [{ line: 1, text }];
        return;
      }
    }
  }
  async function* rest(): AsyncGenerator<Buffer> {
    yield* held;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  yield* splitLines(rest(), maxRowBytes, cut);
}

function parsesAsJson(text: Buffer | string): boolean {
  try {
    JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function firstNonBlankByte(chunk: Buffer): number {
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!;
    // Skip whitespace and a UTF-8 BOM (EF BB BF).
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0xef || b === 0xbb || b === 0xbf) continue;
    return b;
  }
  return -1;
}

/**
 * Rows decoded before they are handed on: a batch holds at most about this much row text. A 1 MB chunk decoded whole
 * was 500 agent rows held as strings while the first of them rendered: every young-generation collection in that time
 * copied them, then moved them to the old generation, which then grew to a full collection.
 */
const BATCH_TEXT_CHARS = 1 << 16;

/**
 * Splits bytes at LF, yielding the rows each chunk completes, in batches of about BATCH_TEXT_CHARS of text. Each line
 * is checked for valid UTF-8 on its own, so one bad line is one issue.
 */
async function* splitLines(chunks: AsyncIterable<Buffer>, maxRowBytes: number, cut: () => boolean = () => false): AsyncGenerator<DatasetRecord[]> {
  let parts: Buffer[] = [];
  let size = 0;
  let overflow = false;
  let line = 1;
  let completed: DatasetRecord[] = [];
  let completedChars = 0;
  function finish(): void {
    const current = line++;
    if (overflow) {
      completed.push(tooLarge(current, size, maxRowBytes));
    } else if (size > 0) {
      let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
      if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
      if (current === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      if (!isUtf8(bytes)) {
        completed.push({ line: current, problem: { code: 'ROW_INVALID_UTF8', message: `line is not valid UTF-8 (${invalidUtf8Offset(bytes)})` } });
      } else {
        const text = bytes.toString('utf8');
        if (!isBlank(text)) {
          completed.push({ line: current, text });
          completedChars += text.length;
        }
      }
    }
    parts = [];
    size = 0;
    overflow = false;
  }
  for await (const chunk of chunks) {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) {
        size += end - start;
        if (size > maxRowBytes) overflow = true;
        if (!overflow) parts.push(chunk.subarray(start, end));
        else parts = [];
      }
      if (newline === -1) break;
      finish();
      start = newline + 1;
      if (completedChars >= BATCH_TEXT_CHARS) {
        yield completed;
        completed = [];
        completedChars = 0;
      }
    }
    if (completed.length > 0) {
      yield completed;
      completed = [];
      completedChars = 0;
    }
  }
  if ((size > 0 || overflow) && !cut()) finish();
  if (completed.length > 0) yield completed;
}

/** Byte offset of the first byte that breaks UTF-8 (only called for lines isUtf8 rejected). */
function invalidUtf8Offset(bytes: Buffer): string {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const width = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (width === 0 || i + width > bytes.length || !isUtf8(bytes.subarray(i, i + width))) break;
    i += width;
  }
  return `first bad byte at offset ${i}`;
}

async function* decodeStrict(name: string, chunks: AsyncIterable<Buffer>, cut: () => boolean): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  try {
    for await (const chunk of chunks) {
      yield decoder.decode(chunk, { stream: true });
      offset += chunk.length;
    }
    if (cut()) return;
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } catch (error) {
    if (error instanceof ChatfmtError) throw error;
    throw new ChatfmtError('INPUT_INVALID', `${name}: JSON array is not valid UTF-8 (in the bytes after offset ${offset})`, { cause: error });
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a && c !== 0xfeff) return false;
  }
  return true;
}

function tooLarge(line: number, size: number, max: number): DatasetRecord {
  return { line, problem: { code: 'ROW_TOO_LARGE', message: `row is ${size} bytes, over the ${max}-byte limit (--max-row-bytes); skipped` } };
}

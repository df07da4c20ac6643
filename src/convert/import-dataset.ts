import { readDatasetRecords, type DatasetRecord, type ReadRecordsOptions } from '../readers/jsonl.js';
import type { DatasetSource } from '../readers/source.js';
import { makeIssue } from '../readers/issues.js';
import { nestingDepth, ROW_MAX_DEPTH, tooDeepMessage } from '../readers/limits.js';
import { importRow, type ImportedConversation, type ImportShape } from './importers/index.js';
import { rowFailure, type ConvertIssue } from './issues.js';
import { exactJsonValue } from './loose-json.js';
import { isPlainObject } from '../util/guards.js';

export interface ImportDatasetOptions extends ReadRecordsOptions {
  from: ImportShape;
  /** Called after every row with the bytes read so far and the input size (when known), for progress bars. */
  onProgress?: (progress: { rows: number; bytesRead: number; totalBytes: number | undefined }) => void;
}

/** One input row: its conversation (null when it could not be mapped) and every issue found on it. */
export interface ImportedRow {
  /** The line the row starts on; 0 where that says nothing (elements sharing a line in a minified JSON array). */
  line: number;
  /** The row's 1-based index in the input. */
  row: number;
  conversation: ImportedConversation | null;
  issues: ConvertIssue[];
}

/**
 * Streams a dataset (path, '-', stream or lines; JSONL, JSON array or gzip) through an importer. Every row comes out,
 * in order: a row that is not JSON, too large or not mappable comes out with `conversation: null` and its issues.
 */
export async function* importDataset(source: DatasetSource, options: ImportDatasetOptions): AsyncGenerator<ImportedRow> {
  const reader = readDatasetRecords(source, options);
  let rows = 0;
  for await (const record of reader) {
    const row = record.row ?? ++rows;
    rows = row;
    yield withRow(readRow(record, options.from), row);
    options.onProgress?.({ rows, bytesRead: reader.source.bytesRead(), totalBytes: reader.source.totalBytes });
  }
}

/** One record through the importer: its conversation, or null and why. */
export function readRow(record: DatasetRecord, from: ImportShape): Omit<ImportedRow, 'row'> {
  if (record.problem) return { line: record.line, conversation: null, issues: [makeIssue(record.line, record.problem.code, '', record.problem.message)] };
  let row: unknown;
  try {
    row = JSON.parse(record.text);
  } catch (error) {
    const message = `not valid JSON: ${(error as Error).message}`;
    return { line: record.line, conversation: null, issues: [makeIssue(record.line, 'ROW_INVALID_JSON', '', message)] };
  }
  if (nestingDepth(row) > ROW_MAX_DEPTH) return { line: record.line, conversation: null, issues: [makeIssue(record.line, 'ROW_TOO_DEEP', '', tooDeepMessage())] };
  try {
    return { line: record.line, ...importRow(importableValue(record.text, row), from, record.line) };
  } catch (error) {
    // Whatever one row holds, it costs that row only: the run goes on.
    return { line: record.line, conversation: null, issues: [rowFailure(record.line, error)] };
  }
}

/** Issues carry the row index too, so a minified array's issues can be told apart. */
export function withRow(imported: Omit<ImportedRow, 'row'>, row: number): ImportedRow {
  return { ...imported, row, issues: imported.issues.map((found) => ({ ...found, row })) };
}

/** `parsed` (JSON.parse of `text`) as importers take it: numbers as render reads them, rows and turns as objects. */
export function importableValue(text: string, parsed: unknown): unknown {
  return structuralObjects(exactJsonValue(text, parsed));
}

/**
 * The Python value model reads an object whose keys look like integers as a Map (to keep their order). That matters in
 * arguments and schemas, which are written out again; a row or a turn with such a key is still a row or a turn.
 */
function structuralObjects(row: unknown): unknown {
  const plain = toObject(row);
  if (!isPlainObject(plain)) return plain;
  for (const key of ['messages', 'conversations']) {
    const turns = plain[key];
    if (Array.isArray(turns) && turns.some((turn) => turn instanceof Map)) plain[key] = turns.map(toObject);
  }
  return plain;
}

function toObject(value: unknown): unknown {
  if (!(value instanceof Map)) return value;
  const object: Record<string, unknown> = {};
  for (const [key, item] of value) Object.defineProperty(object, String(key), { value: item, enumerable: true, writable: true, configurable: true });
  return object;
}

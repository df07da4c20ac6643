import { readDatasetRecords, type ReadRecordsOptions } from '../dataset/jsonl.js';
import type { DatasetSource } from '../dataset/source.js';
import { makeIssue } from '../dataset/issues.js';
import { importRow, type ImportedConversation, type ImportShape } from './importers/index.js';
import type { ConvertIssue } from './issues.js';

export interface ImportDatasetOptions extends ReadRecordsOptions {
  from: ImportShape;
}

/** One input row: its conversation (null when it could not be mapped) and every issue found on it. */
export interface ImportedRow {
  line: number;
  conversation: ImportedConversation | null;
  issues: ConvertIssue[];
}

/**
 * Streams a dataset (path, '-', stream or lines; JSONL, JSON array or gzip) through an importer. Every row comes out,
 * in order: a row that is not JSON, too large or not mappable comes out with `conversation: null` and its issues.
 */
export async function* importDataset(source: DatasetSource, options: ImportDatasetOptions): AsyncGenerator<ImportedRow> {
  for await (const record of readDatasetRecords(source, options)) {
    if (record.problem) {
      yield { line: record.line, conversation: null, issues: [makeIssue(record.line, record.problem.code, '', record.problem.message)] };
      continue;
    }
    let row: unknown;
    try {
      row = JSON.parse(record.text);
    } catch (error) {
      const message = `not valid JSON: ${(error as Error).message}`;
      yield { line: record.line, conversation: null, issues: [makeIssue(record.line, 'ROW_INVALID_JSON', '', message)] };
      continue;
    }
    yield { line: record.line, ...importRow(row, options.from, record.line) };
  }
}

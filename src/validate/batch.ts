import type { DatasetIssue } from '../readers/issues.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import type { RowValidator } from './row.js';
import { ARGS_FORM_OBJECT, ARGS_FORM_STRING } from './checks/tools.js';

/** What validating one batch of records gives; plain data, so workers can post it back. */
export interface BatchResult {
  issues: DatasetIssue[];
  rows: number;
  /** First line in the batch whose row passes arguments as JSON strings / as objects (0 = none). */
  firstStringArgsLine: number;
  firstObjectArgsLine: number;
}

export function validateBatch(validator: RowValidator, records: readonly DatasetRecord[]): BatchResult {
  const result: BatchResult = { issues: [], rows: 0, firstStringArgsLine: 0, firstObjectArgsLine: 0 };
  for (const record of records) {
    // A problem of the file (an unclosed array) is not a row.
    if (record.row !== 0) result.rows++;
    const outcome = validator.validate(record);
    for (const issue of outcome.issues) result.issues.push(record.row === undefined ? issue : { ...issue, row: record.row });
    const where = record.line || (record.row ?? 0);
    if (outcome.forms & ARGS_FORM_STRING && result.firstStringArgsLine === 0) result.firstStringArgsLine = where;
    if (outcome.forms & ARGS_FORM_OBJECT && result.firstObjectArgsLine === 0) result.firstObjectArgsLine = where;
  }
  return result;
}

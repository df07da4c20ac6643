import type { ImportShape } from '../convert/importers/types.js';
import type { ImportedRow } from '../convert/import-dataset.js';
import { ARGS_FORM_OBJECT, ARGS_FORM_STRING } from './checks/tools.js';
import { readDatasetRecords, type ReadRecordsOptions } from '../readers/jsonl.js';
import { createRowValidator } from './row.js';
import type { DatasetSource } from '../readers/source.js';
import { emptyDatasetIssue, MixedFormsTracker } from './validate.js';

export interface CheckedImportOptions extends ReadRecordsOptions {
  from: ImportShape;
  /** Called after every row with the bytes read so far and the input size (when known), for progress bars. */
  onProgress?: (progress: { rows: number; bytesRead: number; totalBytes: number | undefined }) => void;
}

/**
 * `importDataset` behind validate's checks: each row gets exactly the issues `validateDataset` reports for it (same
 * codes, paths in the row's own shape, row indexes), and its conversation only when none of them is an error. The
 * dataset-level issues (no rows, mixed argument forms) come out as rows of their own with `conversation: null`.
 */
export async function* checkedImport(source: DatasetSource, options: CheckedImportOptions): AsyncGenerator<ImportedRow> {
  const reader = readDatasetRecords(source, options);
  const validator = await createRowValidator({ shape: options.from });
  const forms = new MixedFormsTracker();
  let rows = 0;
  for await (const record of reader) {
    const row = record.row ?? ++rows;
    rows = Math.max(rows, row);
    const outcome = validator.validate(record);
    const where = record.line || row;
    const issues = forms.apply({
      issues: outcome.issues.map((issue) => ({ ...issue, row })),
      rows: 1,
      firstStringArgsLine: outcome.forms & ARGS_FORM_STRING ? where : 0,
      firstObjectArgsLine: outcome.forms & ARGS_FORM_OBJECT ? where : 0,
    });
    yield { line: record.line, row, conversation: outcome.conversation, issues };
    options.onProgress?.({ rows, bytesRead: reader.source.bytesRead(), totalBytes: reader.source.totalBytes });
  }
  if (rows === 0) yield { line: 0, row: 0, conversation: null, issues: [emptyDatasetIssue(reader.source.name)] };
}

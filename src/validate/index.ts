// Public surface of src/validate: the dataset validator and its building blocks (helper C reuses the reader).
export { validateDataset, type ValidateOptions, type DatasetValidation, type ValidationProgress } from './validate.js';
export { datasetIssueCodes, datasetIssueSeverity, formatIssue, makeIssue, isDatasetIssueCode, type DatasetIssue, type DatasetIssueCode } from '../readers/issues.js';
export { readDatasetRecords, DEFAULT_MAX_ROW_BYTES, type DatasetRecord, type ReadRecordsOptions, type RecordReader } from '../readers/jsonl.js';
export type { DatasetSource, SourceOptions } from '../readers/source.js';
export { createRowValidator, detectRowShape, type RowCheckOptions, type RowOutcome, type RowShape, type RowValidator } from './row.js';
export type { TemplateCheckOptions } from './template-checks.js';
export { mergeSummaries, SummaryBuilder, type ValidationSummary, type CodeCount, type Shard, type ArgumentForms } from './summary.js';
export { joinPath, pointerToPath } from '../readers/paths.js';
export { convertDataset, type ConvertDatasetOptions } from './convert-dataset.js';
export type { ConvertRowsOptions, ConvertedRow } from './convert-rows.js';

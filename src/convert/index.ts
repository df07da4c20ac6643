// Public surface of src/convert: importers, training records, tokenizer offsets, prefix check, transpile.
export { importRow, importShapes, isImportShape, mapPseudoType, type ImportedConversation, type ImportResult, type ImportShape } from './importers/index.js';
export { exactJson } from './exact-json.js';
export { importDataset, type ImportDatasetOptions, type ImportedRow } from './import-dataset.js';
export { type ConvertIssue, type ConvertIssueAnyCode } from './issues.js';
export { createTokenizer, loadTokenizer, tokenizerLoadCount, type ChatTokenizer, type TokenizedText } from './tokenizer.js';
export { messageTokenCounts, type MessageTokenCounts, type MessageTokenOptions, type MessageTokenSpan } from './message-tokens.js';
export { DEFAULT_MAX_PREFIX_RENDER_CHARS } from '../render/render-prefixes.js';
export { toTrainingRecord, type TrainOn, type TrainingRecord, type TrainingRecordOptions, type TrainingRecordResult } from './training-record.js';
export { checkPrefixPreserving, type PrefixChange } from './prefix-check.js';
export type { Span as CharSpan } from './spans-by-diff.js';
export { transpile, type TranspileOptions, type TranspileResult, type TranspileWarning, type TranspileWarningCode } from './transpile.js';
export { convertSpans, offsetUnits, type OffsetUnit } from './text-offsets.js';

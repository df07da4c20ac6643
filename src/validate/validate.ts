import { ChatfmtError } from '../errors.js';
import { validateBatch, validationOutcomes, type BatchResult } from './batch.js';
import { runBatchesInOrder } from './batch-runner.js';
import { makeIssue, oncePerRun, type DatasetIssue } from '../readers/issues.js';
import { readDatasetRecords, type DatasetRecord, type ReadRecordsOptions } from '../readers/jsonl.js';
import { createRowValidator, detectRowShape, type RowCheckOptions, type RowShape } from './row.js';
import type { ImportShape } from '../convert/importers/types.js';
import type { DatasetSource } from '../readers/source.js';
import { mixedFormsIssue, SummaryBuilder, type ArgumentForms, type Shard, type ValidationSummary } from './summary.js';
import type { TemplateCheckOptions } from './template-checks.js';

export interface ValidationProgress {
  rows: number;
  errors: number;
  warnings: number;
  /** Bytes of the input read so far, and its size when known (compressed sizes for gzip). */
  bytesRead: number;
  totalBytes: number | undefined;
}

export interface ValidateOptions extends ReadRecordsOptions, TemplateCheckOptions {
  /** Row shape; `auto` (default) decides from the first rows of the file. */
  inputFormat?: 'auto' | ImportShape;
  /** Worker threads (default 1: in-process). Issues come out in input order whatever the count. */
  workers?: number;
  /** Heap limit of each worker thread in MB (default 1024); a worker that dies is replaced and its rows reported. */
  workerHeapMb?: number;
  /** Records per batch sent to a worker (default 256). */
  batchSize?: number;
  /** Validate only this shard: records are split into blocks of `shardBlock`, block k belongs to shard (k mod n) + 1. */
  shard?: Shard;
  /** Records per shard block (default 1000). Every shard of one split must use the same value. */
  shardBlock?: number;
  /** Issues kept per code in the summary's examples (default 5). */
  examplesPerCode?: number;
  /** Called after each batch, in order. */
  onProgress?: (progress: ValidationProgress) => void;
}

/** Issues in input order, then `summary()`. Iterate once; `summary()` alone validates without collecting. */
export interface DatasetValidation extends AsyncIterable<DatasetIssue> {
  summary(): Promise<ValidationSummary>;
}

const DEFAULT_BATCH = 256;
const DEFAULT_SHARD_BLOCK = 1000;
const SHAPE_PROBE_ROWS = 64;

/** Validates a dataset: `source` is a path, '-' (stdin), a readable stream, or an async iterable of lines. */
export function validateDataset(source: DatasetSource, options: ValidateOptions = {}): DatasetValidation {
  checkOptions(options);
  const builder = new SummaryBuilder(options.examplesPerCode);
  let resolveSummary!: (summary: ValidationSummary) => void;
  let rejectSummary!: (error: unknown) => void;
  const summary = new Promise<ValidationSummary>((resolve, reject) => {
    resolveSummary = resolve;
    rejectSummary = reject;
  });
  summary.catch(() => {});
  let started = false;

  async function* issues(): AsyncGenerator<DatasetIssue> {
    let completed = false;
    try {
      const meta: RunMeta = { inputs: [], shape: 'openai', forms: undefined };
      for await (const issue of runValidation(source, options, builder, meta)) {
        builder.add(issue);
        yield issue;
      }
      completed = true;
      resolveSummary(builder.build(meta.inputs, meta.shape, options.shard, meta.forms));
    } catch (error) {
      rejectSummary(error);
      throw error;
    } finally {
      if (!completed) rejectSummary(new ChatfmtError('INPUT_INVALID', 'validation was stopped before the end of the input'));
    }
  }

  const validation: DatasetValidation = {
    [Symbol.asyncIterator]() {
      if (started) throw new ChatfmtError('INPUT_INVALID', 'a dataset validation can be iterated only once');
      started = true;
      return issues();
    },
    async summary() {
      if (!started) for await (const _ of validation);
      return summary;
    },
  };
  return validation;
}

function checkOptions(options: ValidateOptions): void {
  const positiveInt = (value: number | undefined, name: string) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) throw new ChatfmtError('INPUT_INVALID', `${name} must be a positive integer, got ${value}`);
  };
  positiveInt(options.workers, 'workers');
  positiveInt(options.batchSize, 'batchSize');
  positiveInt(options.workerHeapMb, 'workerHeapMb');
  positiveInt(options.shardBlock, 'shardBlock');
  positiveInt(options.maxRowBytes, 'maxRowBytes');
  positiveInt(options.maxLength, 'maxLength');
  if (options.shard) {
    const { index, count } = options.shard;
    if (!(Number.isInteger(count) && count >= 1 && Number.isInteger(index) && index >= 1 && index <= count)) {
      throw new ChatfmtError('INPUT_INVALID', `shard must be i/n with 1 <= i <= n, got ${index}/${count}`);
    }
  }
}

interface RunMeta {
  inputs: string[];
  shape: RowShape | ImportShape;
  forms: ArgumentForms | undefined;
}

async function* runValidation(source: DatasetSource, options: ValidateOptions, builder: SummaryBuilder, meta: RunMeta): AsyncGenerator<DatasetIssue> {
  const reader = readDatasetRecords(source, options);
  meta.inputs = [reader.source.name];
  const counter = { records: 0 };
  const batches = batchesOf(reader, options, counter)[Symbol.asyncIterator]();
  const first = await batches.next();
  const firstBatch = first.done ? [] : first.value;
  const shape = options.inputFormat && options.inputFormat !== 'auto' ? options.inputFormat : detectShape(firstBatch);
  meta.shape = shape;
  const rowOptions: RowCheckOptions = {
    shape,
    family: options.family,
    template: options.template,
    templateName: options.templateName,
    roundTrip: options.roundTrip,
    tokenizer: options.tokenizer,
    variables: options.variables,
    now: options.now,
    maxLength: options.maxLength,
  };
  const forms = new MixedFormsTracker();
  const once = oncePerRun();
  meta.forms = forms.forms;
  const progress = () =>
    options.onProgress?.({ rows: builder.rows, errors: builder.errorCount, warnings: builder.warningCount, bytesRead: reader.source.bytesRead(), totalBytes: reader.source.totalBytes });
  const emit = (result: BatchResult): DatasetIssue[] => {
    builder.rows += result.rows;
    return once(forms.apply(result));
  };

  try {
    yield* validateBatches(firstBatch, batches, rowOptions, options, emit, progress);
  } finally {
    // Stops reading (and closes the file) when the consumer stops early.
    await batches.return?.(undefined);
  }
  if (counter.records === 0 && (!options.shard || options.shard.index === 1)) yield emptyDatasetIssue(reader.source.name);
}

/** The verdict on an input with no rows, the same in validate and convert. */
export function emptyDatasetIssue(name: string): DatasetIssue {
  return makeIssue(0, 'DATASET_EMPTY', '', `${name}: no rows (the input is empty or blank)`);
}

/** Validates the batches in-process or on a worker pool (see runBatchesInOrder), yielding issues in input order. */
async function* validateBatches(
  firstBatch: DatasetRecord[],
  batches: AsyncIterator<DatasetRecord[]>,
  rowOptions: RowCheckOptions,
  options: ValidateOptions,
  emit: (result: BatchResult) => DatasetIssue[],
  progress: () => void,
): AsyncGenerator<DatasetIssue> {
  const results = runBatchesInOrder(firstBatch, batches, {
    workers: options.workers ?? 1,
    workerHeapMb: options.workerHeapMb,
    task: { kind: 'validate', options: rowOptions },
    outcomes: validationOutcomes,
    inProcess: async () => {
      const validator = await createRowValidator(rowOptions);
      return (records) => validateBatch(validator, records);
    },
  });
  for await (const result of results) {
    yield* emit(result);
    progress();
  }
}

/** Groups records into batches; with a shard, keeps only the records of its blocks. */
export async function* batchesOf(records: AsyncIterable<DatasetRecord>, options: Pick<ValidateOptions, 'batchSize' | 'shard' | 'shardBlock'>, counter: { records: number }): AsyncGenerator<DatasetRecord[]> {
  const size = options.batchSize ?? DEFAULT_BATCH;
  const block = options.shardBlock ?? DEFAULT_SHARD_BLOCK;
  const shard = options.shard;
  let batch: DatasetRecord[] = [];
  for await (const record of records) {
    const ordinal = counter.records++;
    if (shard && Math.floor(ordinal / block) % shard.count !== shard.index - 1) continue;
    batch.push(record);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function detectShape(batch: readonly DatasetRecord[]): RowShape {
  for (const record of batch.slice(0, SHAPE_PROBE_ROWS)) {
    if (record.text === undefined) continue;
    try {
      const shape = detectRowShape(JSON.parse(record.text));
      if (shape) return shape;
    } catch {
      // Not JSON: the row check reports it.
    }
  }
  return 'openai';
}

/** Dataset-wide: arguments as JSON strings in some rows and objects in others break HF `datasets` (Arrow) typing. */
export class MixedFormsTracker {
  readonly forms: ArgumentForms = { firstStringLine: 0, firstObjectLine: 0 };
  private reported = false;

  apply(result: BatchResult): DatasetIssue[] {
    this.forms.firstStringLine ||= result.firstStringArgsLine;
    this.forms.firstObjectLine ||= result.firstObjectArgsLine;
    const issue = this.reported ? undefined : mixedFormsIssue(this.forms);
    if (!issue) return result.issues;
    this.reported = true;
    const at = result.issues.findIndex((other) => other.line > issue.line);
    const issues = [...result.issues];
    issues.splice(at === -1 ? issues.length : at, 0, issue);
    return issues;
  }
}

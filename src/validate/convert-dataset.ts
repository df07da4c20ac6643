import { throwIfFatal, type ConvertBatchResult, type ConvertedRow, type ConvertRowsOptions } from '../convert/convert-rows.js';
import { runBatchesInOrder } from './batch-runner.js';
import { makeIssue } from '../readers/issues.js';
import { readDatasetRecords, type ReadRecordsOptions } from '../readers/jsonl.js';
import type { BatchOutcomes } from './pool.js';
import type { DatasetSource } from '../readers/source.js';
import { batchesOf } from './validate.js';

export interface ConvertDatasetOptions extends ConvertRowsOptions, ReadRecordsOptions {
  /** Worker threads (default 1: in-process). Rows come out in input order, byte for byte the same, whatever the count. */
  workers?: number;
  /** Heap limit of each worker thread in MB (default 1024); a worker that dies is replaced and its rows reported. */
  workerHeapMb?: number;
  /** Records per batch (default 256). An input that fits in one batch is converted in-process. */
  batchSize?: number;
  /** Called after each batch with the rows done, the bytes read so far and the input size (when known). */
  onProgress?: (progress: { rows: number; bytesRead: number; totalBytes: number | undefined }) => void;
}

/** A row whose worker died has no output and one WORKER_DIED issue; rows re-run one by one merge in order. */
const conversionOutcomes: BatchOutcomes<ConvertBatchResult> = {
  died: (records, why) => ({
    rows: records.map((record) => ({
      line: record.line,
      row: record.row ?? 0,
      output: null,
      issues: [{ ...makeIssue(record.line, 'WORKER_DIED', '', `the worker converting this row died (${why}); the run went on with a new worker`), row: record.row ?? 0 }],
    })),
  }),
  merge: (results) => ({ rows: results.flatMap((result) => result.rows), fatal: results.find((result) => result.fatal)?.fatal }),
};

/**
 * Converts a dataset (path, '-', stream or lines) row by row, in-process or on `workers` threads (the validator's
 * pool), yielding every row in input order: its output line or null, and its issues.
 */
export async function* convertDataset(source: DatasetSource, options: ConvertDatasetOptions): AsyncGenerator<ConvertedRow> {
  const { workers = 1, workerHeapMb, batchSize, onProgress, stdin, name, maxRowBytes, container, ...rowOptions } = options;
  const reader = readDatasetRecords(source, { stdin, name, maxRowBytes, container });
  const batches = batchesOf(reader, { batchSize }, { records: 0 })[Symbol.asyncIterator]();
  let rows = 0;
  try {
    const first = await batches.next();
    const results = runBatchesInOrder(first.done ? [] : first.value, batches, {
      workers,
      workerHeapMb,
      task: { kind: 'convert', options: rowOptions },
      outcomes: conversionOutcomes,
      inProcess: async () => (await import('../convert/convert-rows.js')).createRowConverter(rowOptions),
    });
    for await (const result of results) {
      throwIfFatal(result);
      yield* result.rows;
      rows += result.rows.length;
      onProgress?.({ rows, bytesRead: reader.source.bytesRead(), totalBytes: reader.source.totalBytes });
    }
  } finally {
    await batches.return?.(undefined);
  }
}

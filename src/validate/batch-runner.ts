import type { DatasetRecord } from '../readers/jsonl.js';
import { findWorkerScript, WorkerPool, type BatchOutcomes } from './pool.js';
import type { WorkerTask } from './worker.js';

export interface BatchRunOptions<R> {
  /** Worker threads asked for; 1 runs in-process. */
  workers: number;
  workerHeapMb?: number;
  /** What each worker runs (plain data: it is posted to the thread). */
  task: WorkerTask;
  outcomes: BatchOutcomes<R>;
  /** The same work in this thread; built only when no pool runs. */
  inProcess(): Promise<(records: DatasetRecord[]) => R>;
}

/**
 * Runs batches and yields their results in input order, in-process or on a worker pool. A job that fits in one batch
 * runs in-process whatever `workers` says: each worker would load the template and tokenizer again for rows this
 * thread finishes sooner alone. With a pool, reading pauses while two batches per worker are in flight, so memory
 * stays flat.
 */
export async function* runBatchesInOrder<R>(first: DatasetRecord[], batches: AsyncIterator<DatasetRecord[]>, options: BatchRunOptions<R>): AsyncGenerator<R> {
  const script = options.workers > 1 && first.length > 0 ? findWorkerScript() : undefined;
  const second = script ? await batches.next() : undefined;
  if (!script || second!.done) {
    const run = await options.inProcess();
    for (let batch = first; batch.length > 0; ) {
      yield run(batch);
      const next = await batches.next();
      batch = next.done ? [] : next.value;
    }
    return;
  }
  const pool = await WorkerPool.start(options.workers, options.task, options.outcomes, script, options.workerHeapMb);
  try {
    const maxInFlight = options.workers * 2;
    const inFlight: Array<Promise<R>> = [];
    const submit = (batch: DatasetRecord[]) => {
      const pending = pool.run(batch);
      pending.catch(() => {});
      inFlight.push(pending);
    };
    submit(first);
    submit(second!.value);
    for (let next = await batches.next(); !next.done; next = await batches.next()) {
      submit(next.value);
      while (inFlight.length >= maxInFlight) yield await inFlight.shift()!;
    }
    while (inFlight.length > 0) yield await inFlight.shift()!;
  } finally {
    await pool.close();
  }
}

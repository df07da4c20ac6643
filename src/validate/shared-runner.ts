import type { DatasetRecord } from '../readers/jsonl.js';
import type { BatchOutcomes, WorkerPool } from './pool.js';
import type { WorkerTask } from './worker.js';

interface Pending<R> {
  batch: DatasetRecord[];
  result: Promise<R>;
  done: boolean;
}

export interface SharedRunOptions<R> {
  /** Threads that run batches, this one included: `threads - 1` workers start. */
  threads: number;
  task: WorkerTask;
  outcomes: BatchOutcomes<R>;
  /** The same work in this thread. */
  here: (records: DatasetRecord[]) => R;
  /**
   * Give the workers their first batches before they are ready (threads asked for by name: each surely takes part).
   * Otherwise the pool gets batches only once a worker is ready, so a small input never waits for a worker to start.
   */
  poolFromStart?: boolean;
}

/**
 * Runs batches in this thread and on worker threads together, yielding their results in input order. The pool is
 * kept at two batches per worker (per ready worker, unless poolFromStart); every other batch runs here. So this thread
 * does not wait for the workers to start (loading the modules and the template costs each one tens of milliseconds,
 * more on a busy machine), and a large input keeps every thread busy. A batch the pool gives up on (workers that cannot
 * start) runs here instead: the work and its output are the same.
 */
export async function* runBatchesShared<R>(batches: AsyncIterable<DatasetRecord[]>, options: SharedRunOptions<R>): AsyncGenerator<R> {
  const script = options.threads > 1 ? (await import('./pool.js')).findWorkerScript() : undefined;
  if (!script) {
    for await (const batch of batches) yield options.here(batch);
    return;
  }
  const { WorkerPool } = await import('./pool.js');
  const workers = options.threads - 1;
  const { pool } = WorkerPool.launch(workers, options.task, options.outcomes, script) as { pool: WorkerPool<R> };
  // Results in input order: a batch run here is done at once, a pool's batch when its worker answers.
  const inFlight: Array<Pending<R>> = [];
  // Room for this thread to go on while the workers start (they have the first batches): ~2,000 rows of output.
  const maxInFlight = 32 + 2 * options.threads;
  const settle = async (entry: Pending<R>): Promise<R> => {
    try {
      return await entry.result;
    } catch {
      return options.here(entry.batch);
    }
  };
  try {
    for await (const batch of batches) {
      if (pool.pendingBatches < 2 * (options.poolFromStart ? workers : pool.readyWorkers)) {
        const entry: Pending<R> = { batch, result: pool.run(batch), done: false };
        entry.result.then(
          () => (entry.done = true),
          () => (entry.done = true),
        );
        inFlight.push(entry);
      } else {
        inFlight.push({ batch, result: Promise.resolve(options.here(batch)), done: true });
        // Workers' messages (ready, a batch done) arrive through the event loop: let it turn, or they would wait until
        // the input needs reading again, hundreds of rows later.
        await new Promise((resume) => setImmediate(resume));
      }
      // What is done at the head goes out now; past the bound, wait for the oldest (reading pauses: memory stays flat).
      while (inFlight.length > 0 && (inFlight[0]!.done || inFlight.length >= maxInFlight)) yield await settle(inFlight.shift()!);
    }
    while (inFlight.length > 0) yield await settle(inFlight.shift()!);
  } finally {
    await pool.close();
  }
}

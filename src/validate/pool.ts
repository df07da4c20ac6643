import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChatfmtError, type ErrorCode } from '../errors.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import type { WorkerReply, WorkerRequest, WorkerTask } from './worker.js';
import { packTask } from './task-transport.js';

/**
 * Where the compiled worker entry is. Installed (dist/) it sits next to this module. Under a TS runner
 * (vitest runs src/), plain worker threads cannot load .ts, so the built dist/ copy is used when it exists;
 * without one, callers fall back to running batches in-process.
 */
export function findWorkerScript(): URL | undefined {
  const candidates = [new URL('./worker.js', import.meta.url), new URL('../../dist/validate/worker.js', import.meta.url)];
  return candidates.find((url) => existsSync(fileURLToPath(url)));
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

interface Job<R> {
  seq: number;
  records: DatasetRecord[];
  /** A batch's rows re-run one at a time after a worker died on it; dying again marks this row. */
  retry: boolean;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** What a pool needs to know about its batches' results when a worker dies under them. */
export interface BatchOutcomes<R> {
  /** The result for rows whose worker died running them (one issue per row). */
  died(records: DatasetRecord[], why: string): R;
  /** One batch's result from its rows' results, in order (after a death, each row ran alone). */
  merge(results: R[]): R;
}

/** Default heap of one worker: far above any row within the row size limit. */
export const DEFAULT_WORKER_HEAP_MB = 1024;

/** Workers that may die without finishing any batch before the pool gives up (a broken setup, not a row). */
const MAX_IDLE_DEATHS = 3;

/**
 * A fixed set of worker threads running one task (validate or convert rows); each batch goes to an idle worker, in
 * submission order. Each worker has a bounded heap; one that dies (out of memory, a crash) is replaced, its batch is
 * re-run one row per job on the new workers, and the row that kills a worker again is reported as WORKER_DIED
 * instead of ending the run.
 */
export class WorkerPool<R> {
  private readonly slots: Slot[] = [];
  private readonly workers: Worker[] = [];
  private readonly queue: Array<Job<R>> = [];
  private readonly running = new Map<Worker, Job<R>>();
  private failure: unknown;
  private closing = false;
  private seq = 0;
  private idleDeaths = 0;

  private constructor(private readonly task: WorkerTask, private readonly outcomes: BatchOutcomes<R>, private readonly script: URL, private readonly heapMb: number) {}

  static async start<R>(size: number, task: WorkerTask, outcomes: BatchOutcomes<R>, script: URL, heapMb = DEFAULT_WORKER_HEAP_MB): Promise<WorkerPool<R>> {
    const { pool, ready } = WorkerPool.launch(size, task, outcomes, script, heapMb);
    try {
      await ready;
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /**
   * Starts `size` workers without waiting for them: batches queue until a worker is ready. `ready` settles when all
   * are (it rejects with the first setup error, and the pool then rejects every batch with it).
   */
  static launch<R>(size: number, task: WorkerTask, outcomes: BatchOutcomes<R>, script: URL, heapMb = DEFAULT_WORKER_HEAP_MB): { pool: WorkerPool<R>; ready: Promise<void> } {
    const pool = new WorkerPool(task, outcomes, script, heapMb);
    const ready = Promise.all(Array.from({ length: size }, () => pool.spawn())).then(() => {});
    ready.catch((error: unknown) => pool.fail(error));
    return { pool, ready };
  }

  /** Workers ready for batches now. */
  get readyWorkers(): number {
    return this.slots.length;
  }

  /** Batches given to the pool and not yet done (queued or running). */
  get pendingBatches(): number {
    return this.queue.length + this.running.size;
  }

  private spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Workers inherit the parent's node flags; --input-type (from `node -e`) is rejected for a file entry.
      const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
      const worker = new Worker(this.script, { workerData: packTask(this.task), execArgv, resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
      this.workers.push(worker);
      const slot: Slot = { worker, busy: false };
      let ready = false;
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          ready = true;
          this.slots.push(slot);
          resolve();
          this.dispatch();
        } else if (reply.type === 'init-error') {
          reject(new ChatfmtError(reply.code as ErrorCode, reply.message));
        } else {
          const job = this.running.get(worker);
          this.running.delete(worker);
          slot.busy = false;
          this.idleDeaths = 0;
          job?.resolve(reply.result as R);
          this.dispatch();
        }
      });
      let death: Error | undefined;
      worker.on('error', (error) => {
        death ??= error;
      });
      worker.on('exit', (code) => {
        if (this.closing) return;
        const error = death ?? new Error(`${this.task.kind} worker exited with code ${code}`);
        if (!ready) {
          // Dying before it is ready is the setup's fault (template, tokenizer), the same for every worker.
          reject(error);
          this.fail(error);
          return;
        }
        this.replace(worker, slot, error);
      });
    });
  }

  /** A worker died: its job is re-run or reported, and a new worker takes its place. */
  private replace(worker: Worker, slot: Slot, error: Error): void {
    this.slots.splice(this.slots.indexOf(slot), 1);
    this.workers.splice(this.workers.indexOf(worker), 1);
    const job = this.running.get(worker);
    this.running.delete(worker);
    if (!job && ++this.idleDeaths > MAX_IDLE_DEATHS) {
      this.fail(error);
      return;
    }
    if (job) this.recover(job, error);
    this.spawn().catch(() => {});
  }

  private recover(job: Job<R>, error: Error): void {
    if (job.retry || job.records.length === 1) {
      job.resolve(this.outcomes.died(job.records, error.message.split('\n')[0]!));
      return;
    }
    // Which row killed it is unknown: each row of the batch runs alone, ahead of the queue, in order.
    const retries: Array<Job<R>> = [];
    const parts = job.records.map((record) => new Promise<R>((resolve, reject) => retries.push({ seq: job.seq, records: [record], retry: true, resolve, reject })));
    this.queue.unshift(...retries);
    Promise.all(parts).then((results) => job.resolve(this.outcomes.merge(results)), job.reject);
    this.dispatch();
  }

  run(records: DatasetRecord[]): Promise<R> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ seq: this.seq++, records, retry: false, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy) continue;
      const job = this.queue.shift()!;
      slot.busy = true;
      this.running.set(slot.worker, job);
      slot.worker.postMessage({ type: 'batch', seq: job.seq, records: job.records } satisfies WorkerRequest);
    }
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.slots.length = 0;
    for (const job of [...this.running.values(), ...this.queue]) job.reject(error);
    this.running.clear();
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
    this.workers.length = 0;
    this.slots.length = 0;
  }
}

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChatfmtError, type ErrorCode } from '../errors.js';
import type { BatchResult } from './batch.js';
import type { DatasetRecord } from './jsonl.js';
import type { RowCheckOptions } from './row.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

/**
 * Where the compiled worker entry is. Installed (dist/) it sits next to this module. Under a TS runner
 * (vitest runs src/), plain worker threads cannot load .ts, so the built dist/ copy is used when it exists;
 * without one, callers fall back to validating in-process.
 */
export function findWorkerScript(): URL | undefined {
  const candidates = [new URL('./worker.js', import.meta.url), new URL('../../dist/dataset/worker.js', import.meta.url)];
  return candidates.find((url) => existsSync(fileURLToPath(url)));
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

interface Job {
  seq: number;
  records: DatasetRecord[];
  resolve(result: BatchResult): void;
  reject(error: unknown): void;
}

/** A fixed set of worker threads; each batch goes to an idle worker, in submission order. */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<Worker, Job>();
  private failure: unknown;
  private closing = false;
  private seq = 0;

  private constructor() {}

  static async start(size: number, options: RowCheckOptions, script: URL): Promise<WorkerPool> {
    const pool = new WorkerPool();
    try {
      await Promise.all(Array.from({ length: size }, () => pool.spawn(options, script)));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  private spawn(options: RowCheckOptions, script: URL): Promise<void> {
    return new Promise((resolve, reject) => {
      // Workers inherit the parent's node flags; --input-type (from `node -e`) is rejected for a file entry.
      const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
      const worker = new Worker(script, { workerData: options, execArgv });
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
          const { type: _type, seq: _seq, ...result } = reply;
          job?.resolve(result);
          this.dispatch();
        }
      });
      worker.on('error', (error) => {
        if (!ready) reject(error);
        this.fail(error);
      });
      worker.on('exit', (code) => {
        if (this.closing) return;
        // A worker that dies, even idle, must fail the pool: a batch posted to it would never come back.
        const error = new Error(`validation worker exited with code ${code}`);
        if (!ready) reject(error);
        this.fail(error);
      });
    });
  }

  run(records: DatasetRecord[]): Promise<BatchResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ seq: this.seq++, records, resolve, reject });
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

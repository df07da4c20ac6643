// Worker-thread entry: validates batches of records for the pool in pool.ts. Runs from dist/ (compiled).
import { parentPort, workerData } from 'node:worker_threads';
import { isChatfmtError } from '../errors.js';
import { validateBatch } from './batch.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { createRowValidator, type RowCheckOptions } from './row.js';

export type WorkerRequest = { type: 'batch'; seq: number; records: DatasetRecord[] };
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'init-error'; code: string; message: string }
  | ({ type: 'result'; seq: number } & ReturnType<typeof validateBatch>);

const port = parentPort;
if (port) {
  try {
    const validator = await createRowValidator(workerData as RowCheckOptions);
    port.on('message', (request: WorkerRequest) => {
      const reply: WorkerReply = { type: 'result', seq: request.seq, ...validateBatch(validator, request.records) };
      port.postMessage(reply);
    });
    port.postMessage({ type: 'ready' } satisfies WorkerReply);
  } catch (error) {
    const code = isChatfmtError(error) ? error.code : 'INTERNAL';
    port.postMessage({ type: 'init-error', code, message: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
  }
}

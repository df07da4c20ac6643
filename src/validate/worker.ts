// Worker-thread entry: runs batches of records for the pool in pool.ts (validating or converting them, as the
// task says). Runs from dist/ (compiled).
import { parentPort, workerData } from 'node:worker_threads';
import type { ConvertRowsOptions } from './convert-rows.js';
import { isChatfmtError } from '../errors.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import type { RenderRowsOptions } from './render-rows.js';
import type { RowCheckOptions } from './row.js';
import { unpackTask, type PackedTask } from './task-transport.js';

/** What the pool's workers run, as plain data. */
export type WorkerTask = { kind: 'validate'; options: RowCheckOptions } | { kind: 'convert'; options: ConvertRowsOptions } | { kind: 'render'; options: RenderRowsOptions };

export type WorkerRequest = { type: 'batch'; seq: number; records: DatasetRecord[] };
export type WorkerReply = { type: 'ready' } | { type: 'init-error'; code: string; message: string } | { type: 'result'; seq: number; result: unknown };

// Each task loads only its own modules: a worker's start-up is paid once per thread, and render needs no row checks.
async function batchRunner(task: WorkerTask): Promise<(records: DatasetRecord[]) => unknown> {
  if (task.kind === 'convert') return (await import('./convert-rows.js')).createRowConverter(task.options);
  if (task.kind === 'render') return (await import('./render-rows.js')).createRowRenderer(task.options);
  const [{ createRowValidator }, { validateBatch }] = await Promise.all([import('./row.js'), import('./batch.js')]);
  const validator = await createRowValidator(task.options);
  return (records) => validateBatch(validator, records);
}

const port = parentPort;
if (port) {
  try {
    const run = await batchRunner(unpackTask(workerData as PackedTask));
    port.on('message', (request: WorkerRequest) => {
      port.postMessage({ type: 'result', seq: request.seq, result: run(request.records) } satisfies WorkerReply);
    });
    port.postMessage({ type: 'ready' } satisfies WorkerReply);
  } catch (error) {
    const code = isChatfmtError(error) ? error.code : 'INTERNAL';
    port.postMessage({ type: 'init-error', code, message: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
  }
}

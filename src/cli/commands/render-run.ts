// `chatfmt render`'s work, loaded only when the command runs: the template engine, the renderer and the dataset reader
// stay out of every other command's start-up (and out of `render --help`).
import { availableParallelism } from 'node:os';
import { readDatasetBatches, type DatasetRecord } from '../../readers/jsonl.js';
import { ChatfmtError, inContext } from '../../errors.js';
import { loadTemplate } from '../../node/load.js';
import { renderConversation, type ArgsMode } from '../../render/index.js';
import type { ImportShape } from '../../convert/importers/types.js';
import type { OffsetUnit } from '../../convert/text-offsets.js';
import { conversationReader } from '../../validate/conversation-input.js';
import { callIdRewrites, createRowRenderer, renderOptionsOf, resultLine, type RenderBatchResult, type RenderRowsOptions, type RewriteTally } from '../../validate/render-rows.js';
import { EXIT, UserError, escapeLineBreaks, type IO } from '../io.js';
import { batchedLines } from '../output.js';
import { parseVariables, positiveInt } from '../options.js';
import { datasetSource, stdinOption } from '../input.js';
import { parseNow } from '../read-input.js';

export interface RenderFlags {
  family?: string;
  template?: string;
  templateName?: string;
  generationPrompt?: boolean;
  continueFinalMessage?: boolean;
  var: string[];
  args: ArgsMode;
  now?: string;
  json?: boolean;
  output?: string;
  offsets: OffsetUnit;
  from?: ImportShape;
  inputFormat?: ImportShape;
  workers?: string;
}

export async function runRender(file: string | undefined, flags: RenderFlags, io: IO): Promise<number> {
  if (flags.family !== undefined && flags.template !== undefined) throw new UserError('give either --family or --template, not both');
  if (flags.family === undefined && flags.template === undefined) throw new UserError('no template: give --family <id> or --template <file|dir>');
  const rowOptions: RenderRowsOptions = {
    family: flags.family,
    template: flags.template,
    templateName: flags.templateName,
    from: flags.from ?? flags.inputFormat,
    addGenerationPrompt: flags.generationPrompt ? true : undefined,
    continueFinalMessage: flags.continueFinalMessage,
    variables: parseVariables(flags.var),
    args: flags.args,
    now: parseNow(flags.now),
    json: flags.json,
    offsets: flags.offsets,
  };
  const askedThreads = positiveInt(flags.workers, '--workers');
  // Loaded first, so a template that cannot load is one error line before any input is read.
  const loaded = loadTemplate({ family: flags.family, template: flags.template, templateName: flags.templateName });
  const source = await datasetSource(file ?? '-', io.cwd);
  const reader = readDatasetBatches(source, { ...stdinOption(source, io), name: file ?? '<stdin>' });
  const batches = reader[Symbol.asyncIterator]();
  let head: DatasetRecord[] = [];
  let ended = false;
  while (!ended && head.length < 2) {
    const next = await batches.next();
    if (next.done) ended = true;
    else head = head.concat(next.value);
  }
  // One conversation (a single line, or a pretty-printed object) prints its text; more, or a .jsonl file, is a batch.
  if (ended && head.length < 2 && !file?.endsWith('.jsonl')) {
    if (head.length === 0) throw new UserError(`${file ?? 'stdin'}: no conversation to render`);
    const record = head[0]!;
    if (record.problem) throw new UserError(inContext(file ?? 'stdin', record.problem.message));
    const readConversation = await conversationReader(rowOptions.from);
    const result = renderConversation(loaded, readConversation(record.text, record.line), renderOptionsOf(rowOptions));
    for (const warning of callIdRewrites(result.warnings)) io.stderr.write(`chatfmt: warning: ${warning.code}: at ${warning.path}: ${escapeLineBreaks(warning.message)}${KEEP_IDS}\n`);
    io.stdout.write(flags.json ? `${JSON.stringify(resultLine(result, flags.offsets))}\n` : result.text);
    return EXIT.OK;
  }
  const threads = askedThreads ?? autoThreads(reader.source.totalBytes);
  const groups = regrouped(head, ended ? undefined : batches, ROWS_PER_BATCH);
  const here = await createRowRenderer(rowOptions, loaded);
  const results = threads > 1 ? await onWorkers(groups, rowOptions, threads, askedThreads !== undefined, here) : inProcess(groups, here);
  const rewritten: RewriteTally = { ids: 0, rows: 0, first: '' };
  const output = batchedLines(io);
  let failed = false;
  try {
    for await (const result of results) {
      failed ||= result.failed > 0;
      rewritten.ids += result.rewrites.ids;
      rewritten.rows += result.rewrites.rows;
      rewritten.first ||= result.rewrites.first;
      const written = output.add(result.text);
      if (written) await written;
      if (result.fatal) throw new ChatfmtError(result.fatal.code, result.fatal.message);
    }
  } finally {
    // The rows before a failure (a template syntax error met late, an unreadable input) are written all the same.
    await output.flush();
  }
  // One line for the whole batch: a dataset of OpenAI ids would otherwise print a warning per call.
  if (rewritten.ids > 0) {
    io.stderr.write(`chatfmt: warning: CALL_IDS_REWRITTEN: ${rewritten.ids} call id(s) in ${rewritten.rows} conversation(s) rewritten (first: ${rewritten.first})${KEEP_IDS}\n`);
  }
  return failed ? EXIT.ISSUES : EXIT.OK;
}

/**
 * Input size from which a render shares its rows with worker threads unasked. This thread does not wait for them; but
 * each loads the modules and the template again and starts with a cold JIT, and on a busy machine that CPU time slows
 * this thread too: 1,500 agent rows (3 MB) took longer on two threads than on one at a load average of 14.
 */
export const AUTO_THREADS_MIN_BYTES = 8 << 20;
/** Past four threads this one's reading and writing become the bound. */
const MAX_AUTO_THREADS = 4;

function autoThreads(inputBytes: number | undefined): number {
  if (inputBytes === undefined || inputBytes < AUTO_THREADS_MIN_BYTES) return 1;
  return Math.min(availableParallelism(), MAX_AUTO_THREADS);
}

/**
 * Rows rendered as one piece: on a worker, enough that a message's cost is small and few enough that the threads share
 * the work evenly; in this thread, an output piece small enough to die young (a chunk's 500 rows of prompts, held as one
 * string, lived long enough to be copied by the garbage collector).
 */
const ROWS_PER_BATCH = 64;

async function* inProcess(groups: AsyncIterable<DatasetRecord[]>, run: (records: DatasetRecord[]) => RenderBatchResult): AsyncGenerator<RenderBatchResult> {
  for await (const group of groups) yield run(group);
}

async function onWorkers(
  batches: AsyncIterable<DatasetRecord[]>, options: RenderRowsOptions, threads: number, asked: boolean, here: (records: DatasetRecord[]) => RenderBatchResult,
): Promise<AsyncIterable<RenderBatchResult>> {
  // Loaded only here: a render on one thread starts without the pool and node:worker_threads.
  const [{ runBatchesShared }, { renderOutcomes }] = await Promise.all([import('../../validate/shared-runner.js'), import('../../validate/render-outcomes.js')]);
  return runBatchesShared(batches, { threads, task: { kind: 'render', options }, outcomes: renderOutcomes, here, poolFromStart: asked });
}

/** The reader's batches (up to ~64 K characters of rows each) cut into pieces of at most `size` rows. */
async function* regrouped(head: DatasetRecord[], rest: AsyncIterator<DatasetRecord[]> | undefined, size: number): AsyncGenerator<DatasetRecord[]> {
  for (let batch: DatasetRecord[] | undefined = head; batch !== undefined; ) {
    for (let start = 0; start < batch.length; start += size) yield batch.slice(start, start + size);
    const next = rest ? await rest.next() : undefined;
    batch = next && !next.done ? next.value : undefined;
  }
}

const KEEP_IDS = '; --args keep renders the ids as given';

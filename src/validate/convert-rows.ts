// convert's per-thread row work: validate's row checks first (so both commands accept and reject the same rows with
// the same issues), then the training record. It sits above convert because it runs validate's checks.
import { ChatfmtError, isChatfmtError, type ErrorCode } from '../errors.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { loadTemplate } from '../node/load.js';
import { exactJson } from '../convert/exact-json.js';
import type { ImportShape } from '../convert/importers/types.js';
import { rowFailure, type ConvertIssue } from '../convert/issues.js';
import type { OffsetUnit } from '../convert/text-offsets.js';
import { loadTokenizer } from '../convert/tokenizer.js';
import { toTrainingRecord, type TrainOn } from '../convert/training-record.js';
import { createRowValidator } from './row.js';
import { append } from '../util/append.js';

/** How to convert rows; plain data, so worker threads can be given it. */
export interface ConvertRowsOptions {
  from: ImportShape;
  /** Training records for this family or template; neither: canonical OpenAI rows. */
  family?: string;
  template?: string;
  templateName?: string;
  /** A tokenizer folder (or tokenizer.json): records carry input_ids, labels and assistant_masks. */
  tokenizer?: string;
  trainOn?: TrainOn;
  checkPrefix?: boolean;
  variables?: Record<string, unknown>;
  /** ISO time for strftime_now (a string: options travel to worker threads); absent: the current time. */
  now?: string;
  offsets?: OffsetUnit;
  /** The work of locating one row's turns, in characters rendered (toTrainingRecord's maxPrefixRenderChars). */
  maxPrefixRenderChars?: number;
}

/** One input row converted: its output line (JSON, no newline) or null, and every issue found on it. */
export interface ConvertedRow {
  line: number;
  row: number;
  output: string | null;
  issues: ConvertIssue[];
  /** Argument forms the row used (validate's ARGS_FORM_* bits), for the dataset-wide mixed-forms check. */
  forms: number;
}

/** A batch of rows converted; `fatal` is an error about the run (a template that fails to compile), not a row. */
export interface ConvertBatchResult {
  rows: ConvertedRow[];
  fatal?: { code: ErrorCode; message: string };
}

/**
 * Builds the per-batch converter (loads the template and tokenizer once per thread). Never throws for a row; an
 * error about the whole run comes back as `fatal` so a worker can report it like a row result.
 */
export async function createRowConverter(options: ConvertRowsOptions): Promise<(records: DatasetRecord[]) => ConvertBatchResult> {
  const renders = options.family !== undefined || options.template !== undefined;
  const loaded = renders ? loadTemplate({ family: options.family, template: options.template, templateName: options.templateName }) : undefined;
  const tokenizer = options.tokenizer === undefined ? undefined : await loadTokenizer(options.tokenizer);
  const now = options.now === undefined ? undefined : new Date(options.now);
  const recordOptions = { trainOn: options.trainOn, checkPrefix: options.checkPrefix, variables: options.variables, now, offsets: options.offsets, maxPrefixRenderChars: options.maxPrefixRenderChars, loaded, tokenizer };
  const validator = await createRowValidator({ shape: options.from });
  return (records) => {
    const rows: ConvertedRow[] = [];
    for (const record of records) {
      const row = record.row ?? 0;
      const checked = validator.validate(record);
      const issues: ConvertIssue[] = checked.issues.map((issue) => ({ ...issue, row }));
      let out: unknown = null;
      try {
        if (checked.conversation && !loaded) out = checked.conversation;
        else if (checked.conversation) {
          const result = toTrainingRecord(checked.conversation, { ...recordOptions, line: record.line });
          append(issues, result.issues.map((issue) => ({ ...issue, row })));
          out = result.record;
        }
      } catch (error) {
        if (isChatfmtError(error)) return { rows, fatal: { code: error.code, message: error.message } };
        issues.push({ ...rowFailure(record.line, error), row });
      }
      rows.push({ line: record.line, row, output: out === null ? null : exactJson(out), issues, forms: checked.forms });
    }
    return { rows };
  };
}

/** The run-wide error a batch came back with, thrown where the run is driven. */
export function throwIfFatal(result: ConvertBatchResult): void {
  if (result.fatal) throw new ChatfmtError(result.fatal.code, result.fatal.message);
}

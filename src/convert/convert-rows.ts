import { ChatfmtError, isChatfmtError, type ErrorCode } from '../errors.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { loadTemplate } from '../node/load.js';
import { exactJson } from './exact-json.js';
import { readRow, withRow } from './import-dataset.js';
import type { ImportShape } from './importers/types.js';
import { rowFailure, type ConvertIssue } from './issues.js';
import type { OffsetUnit } from './text-offsets.js';
import { loadTokenizer } from './tokenizer.js';
import { toTrainingRecord, type TrainOn } from './training-record.js';

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
}

/** One input row converted: its output line (JSON, no newline) or null, and every issue found on it. */
export interface ConvertedRow {
  line: number;
  row: number;
  output: string | null;
  issues: ConvertIssue[];
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
  const recordOptions = { trainOn: options.trainOn, checkPrefix: options.checkPrefix, variables: options.variables, now, offsets: options.offsets, loaded, tokenizer };
  return (records) => {
    const rows: ConvertedRow[] = [];
    for (const record of records) {
      const imported = withRow(readRow(record, options.from), record.row ?? 0);
      const issues = [...imported.issues];
      let out: unknown = null;
      try {
        if (imported.conversation && !loaded) out = imported.conversation;
        else if (imported.conversation) {
          const result = toTrainingRecord(imported.conversation, { ...recordOptions, line: imported.line });
          issues.push(...result.issues);
          out = result.record;
        }
      } catch (error) {
        if (isChatfmtError(error)) return { rows, fatal: { code: error.code, message: error.message } };
        issues.push(rowFailure(imported.line, error));
      }
      rows.push({ line: imported.line, row: imported.row, output: out === null ? null : exactJson(out), issues });
    }
    return { rows };
  };
}

/** The run-wide error a batch came back with, thrown where the run is driven. */
export function throwIfFatal(result: ConvertBatchResult): void {
  if (result.fatal) throw new ChatfmtError(result.fatal.code, result.fatal.message);
}

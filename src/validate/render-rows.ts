// `chatfmt render`'s per-thread row work: a batch of input rows in, their JSONL output lines out. The same code runs
// in the CLI's own thread and on render workers (worker.ts), so both give the same bytes. It sits beside convert's
// row work because the worker pool lives here; it uses neither validate's checks nor its dataset verdicts.
import { ChatfmtError, inContext, isChatfmtError, type ErrorCode } from '../errors.js';
import { loadTemplate } from '../node/load.js';
import type { ImportShape } from '../convert/importers/types.js';
import { convertSpans, type OffsetUnit } from '../convert/text-offsets.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { renderConversation, type ArgsMode, type LoadedTemplate, type RenderOptions, type RenderResult, type RenderWarning } from '../render/index.js';
import { oneLine } from '../util/one-line.js';
import { conversationReader } from './conversation-input.js';

/** How to render rows; plain data, so worker threads can be given it. */
export interface RenderRowsOptions {
  family?: string;
  /** A path as the user gave it: worker threads share the process's working directory. */
  template?: string;
  templateName?: string;
  from?: ImportShape;
  addGenerationPrompt?: boolean;
  continueFinalMessage?: boolean;
  /** Template variables (`--var`); they reach worker threads as they are (task-transport.ts). */
  variables?: Record<string, unknown>;
  args: ArgsMode;
  now?: Date;
  /** `{text, generation_spans}` lines instead of `{text}`. */
  json?: boolean;
  offsets: OffsetUnit;
}

/** Call ids a family's syntax could not carry as given, over some rows: the CLI prints one line for a whole run. */
export interface RewriteTally {
  ids: number;
  rows: number;
  /** Where the first one was, and what became of it. */
  first: string;
}

/** A batch's output lines (each ending in \n), in input order; `fatal` is an error about the run, not a row. */
export interface RenderBatchResult {
  text: string;
  failed: number;
  rewrites: RewriteTally;
  /** A template that does not compile fails every row alike: the rows before it are in `text`, the run stops. */
  fatal?: { code: ErrorCode; message: string };
}

/** What renderConversation takes from the row options: the same for a one-conversation render and for every row. */
export function renderOptionsOf(options: RenderRowsOptions): RenderOptions {
  return {
    addGenerationPrompt: options.addGenerationPrompt,
    continueFinalMessage: options.continueFinalMessage,
    variables: options.variables,
    args: options.args,
    now: options.now,
  };
}

/**
 * Builds the batch renderer (the template loaded once per thread: a caller that loaded it already passes it in); it
 * never throws for a row.
 */
export async function createRowRenderer(
  options: RenderRowsOptions,
  loaded: LoadedTemplate = loadTemplate({ family: options.family, template: options.template, templateName: options.templateName }),
): Promise<(records: DatasetRecord[]) => RenderBatchResult> {
  const readConversation = await conversationReader(options.from);
  const renderOptions = renderOptionsOf(options);
  return (records) => {
    let text = '';
    let failed = 0;
    const rewrites: RewriteTally = { ids: 0, rows: 0, first: '' };
    for (const record of records) {
      try {
        if (record.problem) throw new ChatfmtError('INPUT_INVALID', record.problem.message);
        const result = renderConversation(loaded, readConversation(record.text, record.line), renderOptions);
        const rewritten = callIdRewrites(result.warnings);
        if (rewritten.length > 0) {
          rewrites.ids += rewritten.length;
          rewrites.rows++;
          rewrites.first ||= `${rowPlace(record)}, ${rewritten[0]!.path}: ${oneLine(rewritten[0]!.message)}`;
        }
        text += options.json ? `${JSON.stringify(resultLine(result, options.offsets))}\n` : `{"text":${JSON.stringify(result.text)}}\n`;
      } catch (error) {
        if (isChatfmtError(error) && (error.code === 'TEMPLATE_SYNTAX' || error.code === 'TEMPLATE_SOURCE')) {
          return { text, failed, rewrites, fatal: { code: error.code, message: error.message } };
        }
        failed++;
        text += `${JSON.stringify({ error: oneLine(inContext(rowPlace(record), error instanceof Error ? error.message : String(error))) })}\n`;
      }
    }
    return { text, failed, rewrites };
  };
}

/** Ids the family's syntax could not carry as given (Kimi-K2's `functions.NAME:IDX`, Mistral's 9 characters). */
export function callIdRewrites(warnings: RenderWarning[]): RenderWarning[] {
  return warnings.filter((warning) => warning.code === 'CALL_IDS_REWRITTEN');
}

/** A render result as `--json` prints it. */
export function resultLine(result: Pick<RenderResult, 'text' | 'generationSpans'>, offsets: OffsetUnit): { text: string; generation_spans: Array<[number, number]> } {
  return { text: result.text, generation_spans: convertSpans(result.text, result.generationSpans, offsets) };
}

/** Where a row is, for its error line: its line, or its index where the line says nothing. */
export function rowPlace(record: DatasetRecord): string {
  return record.line > 0 ? `line ${record.line}` : `row ${record.row}`;
}

// `chatfmt render`'s work, loaded only when the command runs: the template engine, the renderer and the dataset reader
// stay out of every other command's start-up (and out of `render --help`).
import type { Conversation } from '../../types.js';
import { convertSpans, type OffsetUnit } from '../../convert/text-offsets.js';
import { readDatasetRecords, type DatasetRecord } from '../../readers/jsonl.js';
import { ChatfmtError, inContext } from '../../errors.js';
import { loadTemplate } from '../../node/load.js';
import { renderConversation, type ArgsMode, type LoadedTemplate, type RenderOptions, type RenderWarning } from '../../render/index.js';
import type { ImportShape } from '../../convert/importers/types.js';
import { conversationReader } from '../conversation-input.js';
import { EXIT, UserError, escapeLineBreaks, type IO } from '../io.js';
import { batchedLines } from '../output.js';
import { parseVariables } from '../options.js';
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
}

export async function runRender(file: string | undefined, flags: RenderFlags, io: IO): Promise<number> {
  if (flags.family !== undefined && flags.template !== undefined) throw new UserError('give either --family or --template, not both');
  if (flags.family === undefined && flags.template === undefined) throw new UserError('no template: give --family <id> or --template <file|dir>');
  const options: RenderOptions = {
    addGenerationPrompt: flags.generationPrompt ? true : undefined,
    continueFinalMessage: flags.continueFinalMessage,
    variables: parseVariables(flags.var),
    args: flags.args,
    now: parseNow(flags.now),
  };
  const loaded = loadTemplate({ family: flags.family, template: flags.template, templateName: flags.templateName });
  const readConversation = await conversationReader(flags.from ?? flags.inputFormat);
  const source = await datasetSource(file ?? '-', io.cwd);
  const records = readDatasetRecords(source, { ...stdinOption(source, io), name: file ?? '<stdin>' })[Symbol.asyncIterator]();
  const first = await records.next();
  const second = first.done ? first : await records.next();
  // One conversation (a single line, or a pretty-printed object) prints its text; more, or a .jsonl file, is a batch.
  if (second.done && !file?.endsWith('.jsonl')) {
    if (first.done) throw new UserError(`${file ?? 'stdin'}: no conversation to render`);
    const record = first.value;
    if (record.problem) throw new UserError(inContext(file ?? 'stdin', record.problem.message));
    const result = renderConversation(loaded, readConversation(record.text, record.line), options);
    for (const warning of idRewrites(result.warnings)) io.stderr.write(`chatfmt: warning: ${warning.code}: at ${warning.path}: ${escapeLineBreaks(warning.message)}${KEEP_IDS}\n`);
    io.stdout.write(flags.json ? `${JSON.stringify(resultLine(result, flags.offsets))}\n` : result.text);
    return EXIT.OK;
  }
  const rewritten: RewriteTally = { ids: 0, rows: 0, first: '' };
  const renderRow = rowRenderer(loaded, readConversation, options, flags, rewritten);
  const output = batchedLines(io);
  let failed = false;
  const write = async (record: DatasetRecord) => {
    const line = renderRow(record);
    failed ||= line.failed;
    const written = output.add(line.text);
    if (written) await written;
  };
  try {
    if (!first.done) await write(first.value);
    if (!second.done) await write(second.value);
    for (let next = await records.next(); !next.done; next = await records.next()) await write(next.value);
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

const KEEP_IDS = '; --args keep renders the ids as given';

interface RewriteTally {
  ids: number;
  rows: number;
  first: string;
}

/** Ids the family's syntax could not carry as given (Kimi-K2's `functions.NAME:IDX`, Mistral's 9 characters). */
function idRewrites(warnings: RenderWarning[]): RenderWarning[] {
  return warnings.filter((warning) => warning.code === 'CALL_IDS_REWRITTEN');
}

function where(record: DatasetRecord): string {
  return record.line > 0 ? `line ${record.line}` : `row ${record.row}`;
}

/** One JSONL output line per input row: `{"text"}` (with spans under --json), or `{"error"}` naming the row. */
function rowRenderer(
  loaded: LoadedTemplate,
  readConversation: (text: string, line: number) => Conversation,
  options: RenderOptions,
  flags: RenderFlags,
  rewritten: RewriteTally,
): (record: DatasetRecord) => { text: string; failed: boolean } {
  return (record) => {
    try {
      if (record.problem) throw new ChatfmtError('INPUT_INVALID', record.problem.message);
      const result = renderConversation(loaded, readConversation(record.text, record.line), options);
      const rewrites = idRewrites(result.warnings);
      if (rewrites.length > 0) {
        rewritten.ids += rewrites.length;
        rewritten.rows++;
        rewritten.first ||= `${where(record)}, ${rewrites[0]!.path}: ${escapeLineBreaks(rewrites[0]!.message)}`;
      }
      return { text: `${JSON.stringify(flags.json ? resultLine(result, flags.offsets) : { text: result.text })}\n`, failed: false };
    } catch (error) {
      // A template that does not compile fails every row alike: the whole run stops with it.
      if (error instanceof ChatfmtError && (error.code === 'TEMPLATE_SYNTAX' || error.code === 'TEMPLATE_SOURCE')) throw error;
      return { text: `${JSON.stringify({ error: escapeLineBreaks(inContext(where(record), error instanceof Error ? error.message : String(error))) })}\n`, failed: true };
    }
  };
}

function resultLine(result: { text: string; generationSpans: Array<[number, number]> }, offsets: OffsetUnit): { text: string; generation_spans: Array<[number, number]> } {
  return { text: result.text, generation_spans: convertSpans(result.text, result.generationSpans, offsets) };
}

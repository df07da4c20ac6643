import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Option } from 'commander';
import type { OffsetUnit, TrainOn } from '../../convert/index.js';
import type { ConvertRowsOptions } from '../../validate/convert-rows.js';
import { offsetUnits } from '../../convert/text-offsets.js';
import { importShapes, isImportShape } from '../../convert/importers/types.js';
import { issueReportLine, oncePerRun } from '../../readers/issues.js';
import { SummaryBuilder, type ValidationSummary } from '../../validate/summary.js';
import { issueCodeBlocks, paint } from '../issue-summary.js';
import { familyIds, resolveFamilyId } from '../../families/info.js';
import { EXIT, UserError, type IO } from '../io.js';
import { datasetSource, stdinOption } from '../input.js';
import { withOutputs } from '../output.js';
import { parseNow } from '../read-input.js';
import { ProgressBar } from '../progress.js';
import type { CommandRegistrar } from './index.js';
import { collect, parseVariables, positiveInt } from '../options.js';

interface ConvertFlags {
  from?: string;
  inputFormat?: string;
  to?: string;
  template?: string;
  templateName?: string;
  trainOn: TrainOn;
  tokenizer?: string;
  output?: string;
  report?: string;
  prefixCheck: boolean;
  var: string[];
  now?: string;
  maxRowBytes?: string;
  maxPrefixRenderChars?: string;
  progress: boolean;
  offsets: OffsetUnit;
  workers?: string;
}

const HELP = `
Shapes (--from): ${importShapes.join(', ')}
  openai       {"messages": [...], "tools": [...]} (OpenAI fine-tuning; legacy functions/function_call too)
  sharegpt     LLaMA-Factory {"conversations": [{"from": human|gpt|function_call|observation|system, "value"}], "system", "tools": "<JSON>"}
  hermes-text  Hermes FC: ShareGPT turns, <tools> in the system text, <tool_call>/<tool_response> text (JSON or Python-dict quoting)
  xlam         {"query", "tools": "<JSON>", "answers": "<JSON>"} (pseudo-types such as "str, optional" become JSON Schema)
  llamafactory LLaMA-Factory v1 {"messages": [{"role", "content": [{"type": text|reasoning|tool_call, "value"}], "loss_weight"}], "tools": "<JSON>"}

Targets (--to):
  openai       canonical JSONL {"messages", "tools"} (arguments as JSON strings)
  <family>     training records {"text", "spans"}: text is exactly what \`chatfmt render --family <family>\` gives,
               spans are the [start, end) ranges of assistant output that carry loss, in UTF-16 units (JS string
               indices); --offsets codepoint gives Python str indices, --offsets byte UTF-8 byte offsets. With --tokenizer DIR
               (tokenizer.json + tokenizer_config.json) records also carry input_ids, labels (-100 outside the spans)
               and assistant_masks; a token is trained when it overlaps a span by at least one character.
  --template   your own template instead of a family's; without {% generation %} markers spans come from render diffs.

Every input row is accounted for: rows that cannot be converted are reported (stderr summary, --report FILE with one
{line, code, severity, path, message} JSON per line) and left out of the output.
Exit codes: 0 all rows converted, 1 some rows had errors or the output could not be written, 2 usage or I/O error.

Examples:
  chatfmt convert data.jsonl --from sharegpt --to openai -o data.openai.jsonl
  chatfmt convert data.jsonl --from sharegpt --to qwen3 --tokenizer ./Qwen3-0.6B --train-on last -o train.jsonl
  chatfmt convert xlam.json --from xlam --to openai --report issues.jsonl

Families: ${familyIds.join(', ')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('convert')
    .summary('import SFT datasets into OpenAI messages or tokenised training records with loss masks')
    .description('Convert a dataset (OpenAI, ShareGPT, Hermes text, xLAM) into canonical OpenAI JSONL or training records for a family/template.')
    .argument('<file>', 'dataset: JSONL, JSON array or .gz ("-": stdin)')
    .addOption(new Option('--from <shape>', 'input shape').choices([...importShapes]))
    .addOption(new Option('--input-format <shape>', 'the same as --from, as validate spells it').choices([...importShapes]))
    .option('--json', 'JSON output (the default for converted rows; accepted for symmetry)')
    .option('--to <target>', '"openai" or a family id (see `chatfmt families`)')
    .option('--template <file|dir>', 'render training records with this template (a .jinja, tokenizer_config.json or model folder)')
    .option('--template-name <name>', 'a named template inside the config')
    .addOption(new Option('--train-on <turns>', 'which assistant turns carry loss').choices(['all', 'last']).default('all'))
    .option('--tokenizer <dir>', 'folder with tokenizer.json (+ tokenizer_config.json): add input_ids, labels, assistant_masks')
    .option('-o, --output <file>', 'write the converted rows here (default: stdout)')
    .option('--report <file>', 'write every issue as one JSON line')
    .option('--no-prefix-check', 'skip the check for templates that rewrite earlier turns (one render per message)')
    .option('--var <key=value>', 'template variable, e.g. enable_thinking=false; JSON when it parses, else a string (repeatable)', collect, [])
    .option('--now <iso>', 'clock for strftime_now (UTC unless a zone is given)')
    .addOption(new Option('--offsets <unit>', 'how spans count: utf16 (JS), codepoint (Python str), byte (UTF-8)').choices([...offsetUnits]).default('utf16'))
    .option('--max-row-bytes <n>', 'longest row accepted (default 33554432)')
    .option('--max-prefix-render-chars <n>', "work to locate one row's assistant turns, in characters rendered (each turn renders the conversation up to it; a message counts 512 more); a row over it is not converted, CONVERT_TOO_LONG (default 4000000000)")
    .option('--workers <n>', 'worker threads (default: number of cores for training records, 1 for --to openai); the output is the same, in the same order')
    .option('--no-progress', 'no progress bar on stderr')
    .addHelpText('after', HELP)
    .action(async (file: string, flags: ConvertFlags) => {
      state.exitCode = await runConvert(file, flags, io);
    });
};

/** What the rows are converted with; workers load the same themselves. */
async function resolveTarget(flags: ConvertFlags, io: IO): Promise<Pick<ConvertRowsOptions, 'family' | 'template' | 'templateName' | 'tokenizer'>> {
  const to = flags.to;
  if (to === undefined && flags.template === undefined) throw new UserError('no target: give --to openai|<family> or --template <file|dir>');
  if (to === 'openai') {
    if (flags.template !== undefined || flags.tokenizer !== undefined) throw new UserError('--to openai writes messages: --template and --tokenizer apply to training records only');
    return {};
  }
  if (to !== undefined && flags.template !== undefined) throw new UserError('give either --to <family> or --template, not both');
  if (to !== undefined && !resolveFamilyId(to)) throw new UserError(`unknown target "${to}": use openai or one of ${familyIds.join(', ')}`);
  const template = flags.template === undefined ? undefined : resolve(io.cwd, flags.template);
  // Loaded here too (cached per process), so a template that cannot load is a usage error before any output.
  const { loadTemplate } = await import('../../node/load.js');
  const loaded = loadTemplate({ family: to, template, templateName: flags.templateName });
  loaded.select(false);
  loaded.select(true);
  return { family: to, template, templateName: flags.templateName, tokenizer: flags.tokenizer === undefined ? undefined : resolve(io.cwd, flags.tokenizer) };
}

async function runConvert(file: string, flags: ConvertFlags, io: IO): Promise<number> {
  const from = flags.from ?? flags.inputFormat;
  if (from === undefined) throw new UserError(`no input shape: give --from <shape> (one of ${importShapes.join(', ')})`);
  if (!isImportShape(from)) throw new UserError(`unknown shape "${from}"`);
  const target = await resolveTarget(flags, io);
  const source = await datasetSource(file, io.cwd);
  const counts = { rows: 0, written: 0, failed: 0, warnings: 0 };
  const progress = flags.progress && io.stderrIsTTY ? new ProgressBar(io) : undefined;
  // Loaded on use, so other commands start without the importers, tokenizers and the worker pool.
  const { convertDataset } = await import('../../validate/convert-dataset.js');
  const rows = convertDataset(source, {
    from,
    ...target,
    trainOn: flags.trainOn,
    checkPrefix: flags.prefixCheck,
    variables: parseVariables(flags.var),
    now: parseNow(flags.now)?.toISOString(),
    offsets: flags.offsets,
    workers: positiveInt(flags.workers, '--workers') ?? defaultWorkers(flags),
    ...stdinOption(source, io),
    ...(typeof source === 'string' ? {} : { name: file }),
    maxRowBytes: positiveInt(flags.maxRowBytes, '--max-row-bytes'),
    maxPrefixRenderChars: positiveInt(flags.maxPrefixRenderChars, '--max-prefix-render-chars'),
    onProgress: progress && ((p) => progress.update({ ...p, errors: counts.failed, warnings: counts.warnings })),
  });
  return withOutputs(io, [{ flag: '-o', file: flags.output }, { flag: '--report', file: flags.report }], async ([output, report]) => {
    const issues = new SummaryBuilder(EXAMPLES_PER_CODE);
    const once = oncePerRun();
    try {
      for await (const row of rows) {
        // Row 0 is the file itself (no rows at all), not a row to count.
        if (row.row !== 0) counts.rows++;
        if (row.output !== null) {
          counts.written++;
          await output!.write(`${row.output}\n`);
        } else if (row.row !== 0) counts.failed++;
        for (const found of once(row.issues)) {
          issues.add(found);
          if (found.severity === 'warning') counts.warnings++;
          if (flags.report !== undefined) await report!.write(issueReportLine(found));
        }
      }
    } finally {
      progress?.clear();
    }
    const summary = issues.build([], from);
    writeSummary(io, counts, summary);
    return summary.errors > 0 ? EXIT.ISSUES : EXIT.OK;
  });
}

/**
 * A row converted to OpenAI messages is lighter work than handing it to a thread and back (2 cores: `--workers 2`
 * took 0.84× the time of one thread on an idle machine, 0.7× under load; bench/RESULTS.md "chatfmt convert"), so that
 * target runs on this thread; training records render the template per turn, which threads share well.
 */
function defaultWorkers(flags: ConvertFlags): number {
  return flags.to === 'openai' ? 1 : availableParallelism();
}

/** Examples printed per issue code; --report has them all. */
const EXAMPLES_PER_CODE = 3;

function writeSummary(io: IO, counts: { rows: number; written: number; failed: number; warnings: number }, summary: ValidationSummary): void {
  const p = paint(io, io.stderrIsTTY);
  const lines = [`chatfmt convert: ${counts.rows} row(s), ${counts.written} converted, ${counts.failed} not converted, ${counts.warnings} warning(s)`];
  if (summary.errors + summary.warnings > 0) lines.push(...issueCodeBlocks(summary, p).filter((line) => line !== ''));
  io.stderr.write(`${lines.join('\n')}\n`);
}

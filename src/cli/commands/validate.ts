import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Option } from 'commander';
import { importShapes, type ImportShape } from '../../convert/importers/types.js';
import type { ValidateOptions, ValidationSummary } from '../../validate/index.js';
import { issueReportLine } from '../../readers/issues.js';
import { formatSummaryText, paint } from '../issue-summary.js';
import { mergeSummaries } from '../../validate/summary.js';
import { familyIds } from '../../families/info.js';
import { EXIT, UserError, type IO } from '../io.js';
import { collect, parseVariables, positiveInt } from '../options.js';
import { ProgressBar } from '../progress.js';
import { withOutputs, type Output } from '../output.js';
import { datasetSource, stdinOption } from '../input.js';
import { parseNow, readInputText } from '../read-input.js';
import type { CommandRegistrar } from './index.js';

interface ValidateFlags {
  inputFormat: 'auto' | ImportShape;
  from?: ImportShape;
  var: string[];
  now?: string;
  output?: string;
  json?: boolean;
  family?: string;
  template?: string;
  templateName?: string;
  roundTrip: boolean;
  tokenizer?: string;
  maxLength?: string;
  report?: string;
  format: 'text' | 'json';
  workers?: string;
  shard?: string;
  merge?: boolean;
  maxRowBytes?: string;
  examples: string;
  progress: boolean;
}

const HELP = `
Input: JSONL (one row per line) or a JSON array of rows; gzip is detected; "-" or no file reads stdin.
Rows: OpenAI fine-tuning format ({"messages", "tools"}) or LLaMA-Factory ShareGPT ({"conversations",
"tools": "<JSON string>"}), detected from the first rows unless --input-format is given.

Checks: structure (chatfmt's JSON schema), tool protocol (ids, order, declared tools), arguments (JSON,
object, the tool's parameters schema), tool schemas (valid JSON Schema, no pseudo-types). With --family or
--template: the row renders, argument/null-content forms the template mishandles, and each tool-call turn
parses back to the same calls. With --tokenizer and --max-length: rows over the limit, cut-off assistant turns.

Exit codes: 0 no errors (warnings allowed), 1 errors found or the output could not be written, 2 usage or I/O error.

Scale: --workers N validates batches on N threads (the report keeps input order). --shard i/n validates
blocks of 1000 rows k with k mod n = i-1, so n machines can split a file; combine their --format json
summaries with --merge.

Examples:
  chatfmt validate train.jsonl
  chatfmt validate --family qwen3 --report issues.jsonl train.jsonl.gz
  chatfmt validate --family qwen3 --tokenizer ./Qwen3-8B --max-length 8192 train.jsonl
  chatfmt validate --shard 2/4 --format json train.jsonl > part2.json
  chatfmt validate --merge part1.json part2.json part3.json part4.json

Families: ${familyIds.join(', ')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('validate')
    .summary('find every broken row of an SFT dataset (structure, tool protocol, arguments, template round trip)')
    .description('Validate a chat fine-tuning dataset row by row; every issue has a code, a line and a JSON path.')
    .argument('[files...]', 'dataset (JSONL, JSON array, .gz; "-" or none: stdin), or JSON summaries with --merge')
    .addOption(new Option('--input-format <shape>', 'row shape (xlam and hermes-text rows are checked as `convert --from` imports them)').choices(['auto', ...importShapes]).default('auto'))
    .addOption(new Option('--from <shape>', 'the same as --input-format, as convert spells it').choices([...importShapes]))
    .option('--family <id>', 'also render each row with this family\'s template and round-trip its tool calls')
    .option('--template <file|dir>', 'also render each row with this template (.jinja, tokenizer_config.json or model folder)')
    .option('--template-name <name>', 'named template in the config')
    .option('--no-round-trip', 'with a template: skip parsing tool-call turns back')
    .option('--tokenizer <dir>', 'tokenizer folder for --max-length (tokenizer.json)')
    .option('--max-length <n>', 'token limit of the rendered row')
    .option('--report <file>', 'write every issue as one JSON line {line, row, code, severity, path, message}')
    .option('-o, --output <file>', 'write the summary here instead of stdout')
    .option('--var <key=value>', 'template variable, e.g. enable_thinking=false; JSON when it parses, else a string (repeatable)', collect, [])
    .option('--now <iso>', 'clock for strftime_now (UTC unless a zone is given)')
    .option('--json', 'print the summary as JSON (the same as --format json)')
    .addOption(new Option('--format <format>', 'summary format on stdout').choices(['text', 'json']).default('text'))
    .option('--workers <n>', 'worker threads (default: number of cores)')
    .option('--shard <i/n>', 'validate only shard i of n (1-based)')
    .option('--merge', 'the files are JSON summaries (--format json) to combine')
    .option('--max-row-bytes <n>', 'longest row accepted (default 33554432)')
    .option('--examples <n>', 'examples shown per issue code', '5')
    .option('--no-progress', 'no progress bar on stderr')
    .addHelpText('after', HELP)
    .action(async (files: string[], flags: ValidateFlags) => {
      if (flags.json) flags.format = 'json';
      state.exitCode = await withOutputs(io, [{ flag: '-o', file: flags.output }, { flag: '--report', file: flags.merge ? undefined : flags.report }], ([out, report]) =>
        flags.merge ? runMerge(files, flags, out!.io) : runValidate(files, flags, out!.io, flags.report === undefined ? undefined : report!),
      );
    });
};


function parseShard(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,5})$/.exec(value);
  const shard = match ? { index: Number(match[1]), count: Number(match[2]) } : undefined;
  if (!shard || shard.index > shard.count) throw new UserError(`--shard must be i/n with 1 <= i <= n, got "${value}"`);
  return shard;
}

async function runValidate(files: string[], flags: ValidateFlags, io: IO, report: Output | undefined): Promise<number> {
  if (files.length > 1) throw new UserError('validate takes one dataset (use --shard/--merge to split work, or run once per file)');
  if (flags.family !== undefined && flags.template !== undefined) throw new UserError('give either --family or --template, not both');
  const maxLength = positiveInt(flags.maxLength, '--max-length');
  if ((maxLength === undefined) !== (flags.tokenizer === undefined)) throw new UserError('--tokenizer and --max-length go together');
  if (flags.tokenizer !== undefined && flags.family === undefined && flags.template === undefined) {
    throw new UserError('--max-length needs a template to render rows: add --family or --template');
  }
  const file = files[0] ?? '-';
  const options: ValidateOptions = {
    inputFormat: flags.inputFormat !== 'auto' ? flags.inputFormat : flags.from ?? 'auto',
    variables: parseVariables(flags.var),
    now: parseNow(flags.now)?.toISOString(),
    family: flags.family,
    template: flags.template === undefined ? undefined : resolve(io.cwd, flags.template),
    templateName: flags.templateName,
    roundTrip: flags.roundTrip,
    tokenizer: flags.tokenizer === undefined ? undefined : resolve(io.cwd, flags.tokenizer),
    maxLength,
    workers: positiveInt(flags.workers, '--workers') ?? availableParallelism(),
    shard: parseShard(flags.shard),
    maxRowBytes: positiveInt(flags.maxRowBytes, '--max-row-bytes'),
    examplesPerCode: positiveInt(flags.examples, '--examples'),
    ...stdinOption(file, io),
    name: file === '-' ? '<stdin>' : file,
  };
  const progress = flags.progress && io.stderrIsTTY ? new ProgressBar(io) : undefined;
  if (progress) options.onProgress = (p) => progress.update(p);
  let summary: ValidationSummary;
  try {
    // Loaded on use, so other commands start without ajv and the worker pool.
    const { validateDataset } = await import('../../validate/validate.js');
    const validation = validateDataset(await datasetSource(file, io.cwd), options);
    for await (const issue of validation) if (report) await report.write(issueReportLine(issue));
    summary = await validation.summary();
  } finally {
    progress?.clear();
  }
  printSummary(summary, flags, io);
  return summary.errors > 0 ? EXIT.ISSUES : EXIT.OK;
}

async function runMerge(files: string[], flags: ValidateFlags, io: IO): Promise<number> {
  if (files.length === 0) throw new UserError('--merge needs the JSON summaries to combine');
  const summaries = await Promise.all(
    files.map(async (file) => {
      const text = await readInputText(file, io);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new UserError(`${file}: not JSON (expected the output of chatfmt validate --format json)`);
      }
    }),
  );
  const merged = mergeSummaries(summaries, positiveInt(flags.examples, '--examples'));
  printSummary(merged, flags, io);
  return merged.errors > 0 ? EXIT.ISSUES : EXIT.OK;
}

function printSummary(summary: ValidationSummary, flags: ValidateFlags, io: IO): void {
  if (flags.format === 'json') {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  io.stdout.write(formatSummaryText(summary, paint(io, io.stdoutIsTTY)));
}

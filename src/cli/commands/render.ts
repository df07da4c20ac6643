import { Option } from 'commander';
import { convertSpans, offsetUnits, type OffsetUnit } from '../../convert/text-offsets.js';
import { readDatasetRecords, type DatasetRecord } from '../../readers/jsonl.js';
import { ChatfmtError, inContext } from '../../errors.js';
import { familyIds } from '../../families/info.js';
import { loadTemplate } from '../../node/load.js';
import { renderConversation, type ArgsMode, type RenderOptions } from '../../render/index.js';
import { importShapes, type ImportShape } from '../../convert/importers/types.js';
import { readConversation } from '../conversation-input.js';
import { EXIT, UserError, escapeLineBreaks, type IO } from '../io.js';
import { withOutput, writeOut } from '../output.js';
import { collect, parseVariables } from '../options.js';
import { datasetSource } from '../input.js';
import { parseNow } from '../read-input.js';
import type { CommandRegistrar } from './index.js';

interface RenderFlags {
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

const HELP = `
Input: a JSON object {messages, tools?, documents?, add_generation_prompt?, ...variables},
or JSONL with one such object per line (rows of a dataset shape with --from sharegpt|hermes-text|xlam|llamafactory) (then one JSON line is printed per input:
{"text": ...} or {"error": ...}), or a JSON array of them; gzip is detected. Without a file,
or with "-", stdin is read. JSONL is streamed: memory stays flat whatever the input size.
Generation spans (--json) count UTF-16 units; --offsets codepoint gives Python str indices.

The text is printed exactly as the template renders it, with no newline added.
Exit codes: 0 rendered, 1 the template rejected the input or the output could not be written, 2 usage, I/O or template syntax error.

Examples:
  chatfmt render --family qwen3 -g fixtures/conversations/weather.json
  chatfmt render --template path/to/model-folder --var enable_thinking=false chat.json
  chatfmt render --template tokenizer_config.json --template-name tool_use --json chat.json
  cat chats.jsonl | chatfmt render --family gpt-oss --var reasoning_effort=high > prompts.jsonl

Families: ${familyIds.join(', ')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('render')
    .summary('render a conversation into the exact prompt text a model was trained on')
    .description('Render OpenAI-style messages and tools through a chat template, byte-identical to transformers\' apply_chat_template.')
    .argument('[file]', 'conversation JSON or JSONL file ("-" or none: stdin)')
    .option('--family <id>', 'use a family\'s bundled template (see `chatfmt families`)')
    .option('--template <file|dir>', 'a .jinja file, a tokenizer_config.json, or a model folder')
    .option('--template-name <name>', 'pick a named template from the config (default: tool_use with tools, else default)')
    .option('-g, --generation-prompt', 'append the assistant header so the model answers next')
    .option('--continue-final-message', 'cut right after the final message\'s content (prefill)')
    .option('--var <key=value>', 'template variable; the value is read as JSON when it parses, else as a string (repeatable)', collect, [])
    .addOption(new Option('--args <mode>', 'auto: convert arguments/null content/call ids to what the template needs; keep: pass messages through').choices(['auto', 'keep']).default('auto'))
    .option('--now <iso>', 'clock for strftime_now, e.g. 2025-01-15T12:00:00 (UTC unless a zone is given)')
    .option('--json', 'print {text, generation_spans} instead of the bare text')
    .addOption(new Option('--offsets <unit>', 'how generation_spans count: utf16 (JS), codepoint (Python str), byte (UTF-8)').choices([...offsetUnits]).default('utf16'))
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addOption(new Option('--from <shape>', 'input rows in this dataset shape, imported as `convert --from` imports them (default: openai, passed through)').choices([...importShapes]))
    .addOption(new Option('--input-format <shape>', 'the same as --from, as validate spells it').choices([...importShapes]))
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: RenderFlags) => {
      state.exitCode = await withOutput(io, flags.output, (out) => runRender(file, flags, out));
    });
};

async function runRender(file: string | undefined, flags: RenderFlags, io: IO): Promise<number> {
  if (flags.family !== undefined && flags.template !== undefined) throw new UserError('give either --family or --template, not both');
  if (flags.family === undefined && flags.template === undefined) throw new UserError('no template: give --family <id> or --template <file|dir>');
  const options: RenderOptions = {
    addGenerationPrompt: flags.generationPrompt ? true : undefined,
    continueFinalMessage: flags.continueFinalMessage,
    variables: parseVariables(flags.var),
    args: flags.args,
    now: parseNow(flags.now),
  };
  const from = flags.from ?? flags.inputFormat;
  const loaded = loadTemplate({ family: flags.family, template: flags.template, templateName: flags.templateName });
  const source = await datasetSource(file ?? '-', io.cwd);
  const records = readDatasetRecords(source, { stdin: io.stdin, name: file ?? '<stdin>' })[Symbol.asyncIterator]();
  const first = await records.next();
  const second = first.done ? first : await records.next();
  const spansOf = (text: string, spans: Array<[number, number]>) => convertSpans(text, spans, flags.offsets);
  // One conversation (a single line, or a pretty-printed object) prints its text; more, or a .jsonl file, is a batch.
  if (second.done && !file?.endsWith('.jsonl')) {
    if (first.done) throw new UserError(`${file ?? 'stdin'}: no conversation to render`);
    const record = first.value;
    if (record.problem) throw new UserError(inContext(file ?? 'stdin', record.problem.message));
    const result = renderConversation(loaded, readConversation(record.text, from, record.line), options);
    io.stdout.write(flags.json ? `${JSON.stringify({ text: result.text, generation_spans: spansOf(result.text, result.generationSpans) })}\n` : result.text);
    return EXIT.OK;
  }
  async function* all(): AsyncGenerator<DatasetRecord> {
    if (!first.done) yield first.value;
    if (!second.done) yield second.value;
    for (let next = await records.next(); !next.done; next = await records.next()) yield next.value;
  }
  let failed = false;
  for await (const record of all()) {
    let out: Record<string, unknown>;
    try {
      if (record.problem) throw new ChatfmtError('INPUT_INVALID', record.problem.message);
      const result = renderConversation(loaded, readConversation(record.text, from, record.line), options);
      out = flags.json ? { text: result.text, generation_spans: spansOf(result.text, result.generationSpans) } : { text: result.text };
    } catch (error) {
      if (error instanceof ChatfmtError && (error.code === 'TEMPLATE_SYNTAX' || error.code === 'TEMPLATE_SOURCE')) throw error;
      failed = true;
      const where = record.line > 0 ? `line ${record.line}` : `row ${record.row}`;
      out = { error: escapeLineBreaks(inContext(where, error instanceof Error ? error.message : String(error))) };
    }
    await writeOut(io, `${JSON.stringify(out)}\n`);
  }
  return failed ? EXIT.ISSUES : EXIT.OK;
}

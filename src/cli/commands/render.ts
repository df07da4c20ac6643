import { Option } from 'commander';
import { offsetUnits } from '../../convert/text-offsets.js';
import { importShapes } from '../../convert/importers/types.js';
import { familyIds } from '../../families/info.js';
import { withOutput } from '../output.js';
import { collect } from '../options.js';
import type { RenderFlags } from './render-run.js';
import type { CommandRegistrar } from './index.js';

const HELP = `
Input: a JSON object {messages, tools?, documents?, add_generation_prompt?, ...variables},
or JSONL with one such object per line (rows of a dataset shape with --from sharegpt|hermes-text|xlam|llamafactory;
then one JSON line is printed per input:
{"text": ...} or {"error": ...}), or a JSON array of them; gzip is detected. Without a file,
or with "-", stdin is read. JSONL is streamed: memory stays flat whatever the input size.
With --workers, this thread keeps rendering while the workers start; each worker loads the template
again, which costs CPU time that only large inputs repay.
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
    .option('--workers <n>', 'render JSONL rows on n threads, this one and n-1 workers; the output is the same bytes in the same order (default: 1, or up to 4 for an input file of 8 MB or more)')
    .addOption(new Option('--from <shape>', 'input rows in this dataset shape, imported as `convert --from` imports them (default: openai, passed through)').choices([...importShapes]))
    .addOption(new Option('--input-format <shape>', 'the same as --from, as validate spells it').choices([...importShapes]))
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: RenderFlags) => {
      const { runRender } = await import('./render-run.js');
      state.exitCode = await withOutput(io, flags.output, (out) => runRender(file, flags, out));
    });
};

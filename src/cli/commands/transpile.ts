import { familyIds } from '../../families/info.js';
import { EXIT, escapeLineBreaks, type IO } from '../io.js';
import { readToolsFile } from '../options.js';
import { withOutput } from '../output.js';
import { readInputText } from '../read-input.js';
import type { CommandRegistrar } from './index.js';

interface TranspileFlags {
  from: string;
  to: string;
  tools?: string;
  prefix?: string;
  json?: boolean;
  output?: string;
}

const HELP = `
Parses a model completion written in one family's syntax and writes the same message (reasoning, content, calls)
the way the other family's template writes an assistant turn. The text goes to stdout with no newline added.
What the target cannot carry is reported on stderr as a warning (the conversion still happens):
  - reasoning a target drops (hermes, qwen2.5, qwen3-coder have no reasoning);
  - several calls for gpt-oss, which carries one call per message: they are written as consecutive assistant
    messages (...<|call|><|start|>assistant...), which harmony parsers read back as parallel calls;
  - calls that do not parse back identically with the target's parser.
Exit codes: 0 written (warnings or not), 1 the target's template rejected the message or the output could not be written,
2 usage or I/O error.

Examples:
  chatfmt transpile out.txt --from glm-4.5 --to qwen3-coder --tools tools.json
  echo '<tool_call>{"name": "f", "arguments": {}}</tool_call>' | chatfmt transpile - --from hermes --to kimi-k2

Families: ${familyIds.join(', ')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('transpile')
    .summary('rewrite a completion from one family\'s tool-call syntax into another\'s')
    .description('Parse a completion with one family\'s grammar and write it in another family\'s syntax.')
    .argument('[file]', 'the completion text ("-" or none: stdin)')
    .requiredOption('--from <family>', 'syntax of the input')
    .requiredOption('--to <family>', 'syntax to write')
    .option('--tools <file>', 'tools JSON (a list, or an object with "tools"): types raw argument values and names calls')
    .option('--prefix <text>', 'end of the prompt the completion followed (e.g. "<think>\\n")')
    .option('--json', 'print {text, message, warnings} as JSON instead of the bare text')
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: TranspileFlags) => {
      state.exitCode = await withOutput(io, flags.output, (out) => runTranspile(file, flags, out));
    });
};

async function runTranspile(file: string | undefined, flags: TranspileFlags, io: IO): Promise<number> {
  const tools = flags.tools === undefined ? null : await readToolsFile(flags.tools, io);
  // A completion, read as parse reads one: bytes that are not UTF-8 become U+FFFD.
  const text = await readInputText(file, io, { utf8: 'replace' });
  const { transpile } = await import('../../convert/transpile.js');
  const result = transpile(text, { from: flags.from, to: flags.to, tools, ...(flags.prefix !== undefined ? { prefix: flags.prefix } : {}) });
  for (const warning of result.warnings) io.stderr.write(`chatfmt: warning: ${warning.code}: ${escapeLineBreaks(warning.message)}\n`);
  io.stdout.write(flags.json ? `${JSON.stringify({ text: result.text, message: result.message, warnings: result.warnings })}\n` : result.text);
  return EXIT.OK;
}


import { resolve } from 'node:path';
import { familyIds, familyInfo, resolveFamilyId, type FamilyId } from '../../families/info.js';
import type { ParseOptions } from '../../parse/index.js';
import type { Delta, Diagnostic } from '../../types.js';
import { EXIT, UserError, type IO } from '../io.js';
import { readToolsFile } from '../options.js';
import { outputTo } from '../output.js';
import { readInputText } from '../read-input.js';
import type { CommandRegistrar } from './index.js';

interface ParseFlags {
  family?: string;
  template?: string;
  templateName?: string;
  output?: string;
  tools?: string;
  prefix?: string;
  prompt?: string;
  strict?: boolean;
  stream?: boolean;
}

const HELP = `
Input: the raw completion text (special tokens kept), from a file or stdin ("-" or none).
Output: {role, content, reasoning_content, tool_calls, diagnostics} as JSON; with --stream,
one OpenAI chunk delta per line as soon as it is known, then the rest at the end of input.

The prompt decides where the completion starts: a prompt ending in "<think>\\n" means the
completion begins inside reasoning. Give that tail with --prefix, or the whole rendered
prompt with --prompt (its text after the last assistant header is used). Without either,
the family's usual generation prompt is assumed.

Malformed or truncated calls never fail the command: their text stays in content and a
diagnostic says why. --strict turns an error diagnostic into exit code 1.
Exit codes: 0 parsed, 1 --strict found an error, 2 usage or I/O error.

Without --family, --template names the model's template (a model folder, tokenizer_config.json or
.jinja): chatfmt uses the family whose template renders like it, and otherwise derives the call
syntax from probe renders of the template (a PARSE_GRAMMAR_DERIVED warning says what it found).

Examples:
  chatfmt parse --family qwen3 completion.txt
  chatfmt parse --template ~/models/My-Finetune completion.txt
  chatfmt parse --family kimi-k2 --tools tools.json out.txt
  chatfmt parse --family deepseek-r1 --prefix $'<think>\\n' < out.txt
  llm-server ... | chatfmt parse --family glm-4.5 --stream

Families (an alias works too; see \`chatfmt families\`):
${familyIds.map((id) => `  ${id.padEnd(14)} ${familyInfo[id].example.replace(/\n/g, '⏎')}`).join('\n')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('parse')
    .summary('parse raw model output into content, reasoning and tool calls')
    .description('Parse a completion in a family\'s wire format into an OpenAI assistant message (or stream deltas).')
    .argument('[file]', 'completion text file ("-" or none: stdin)')
    .option('--family <id>', 'the output format (see `chatfmt families`)')
    .option('--template <path>', 'the model\'s chat template (folder, tokenizer_config.json or .jinja), when the family is not known')
    .option('--template-name <name>', 'named template inside the config')
    .option('--tools <file>', 'declared tools: an OpenAI tools array, or {"tools": [...]}; undeclared names are not calls')
    .option('--prefix <text>', 'the end of the prompt, e.g. "<think>\\n" (sets the starting state)')
    .option('--prompt <file>', 'the rendered prompt; its tail after the last assistant header is the prefix')
    .option('--strict', 'exit 1 on the first error diagnostic')
    .option('--stream', 'read stdin as it arrives and print one delta per line')
    .option('--json', 'print JSON (the default; accepted for symmetry with the other commands)')
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: ParseFlags) => {
      const out = outputTo(io, flags.output);
      state.exitCode = await runParse(file, flags, out.io);
      await out.close();
    });
};

async function runParse(file: string | undefined, flags: ParseFlags, io: IO): Promise<number> {
  if (flags.prefix !== undefined && flags.prompt !== undefined) throw new UserError('give either --prefix or --prompt, not both');
  const chosen = await chooseParser(flags, io);
  const options: ParseOptions = { family: chosen.family, strict: flags.strict === true };
  if (flags.tools !== undefined) options.tools = await readToolsFile(flags.tools, io);
  if (chosen.prefix !== undefined) options.prefix = chosen.prefix;
  if (flags.prefix !== undefined) options.prefix = flags.prefix;
  if (flags.prompt !== undefined) {
    const prompt = await readInputText(flags.prompt, io);
    options.prefix = chosen.id === undefined ? chosen.prefix ?? '' : promptTail(prompt, chosen.id);
  }
  const notes = chosen.diagnostic ? [chosen.diagnostic] : [];
  if (flags.stream) {
    if (file !== undefined && file !== '-') throw new UserError('--stream reads stdin; drop the file argument');
    if (notes.length) io.stdout.write(`${JSON.stringify({ diagnostics: notes })}\n`);
    return streamParse(options, io);
  }
  const { parse } = await import('../../parse/index.js');
  const message = parse(await readInputText(file, io), options);
  message.diagnostics.unshift(...notes);
  io.stdout.write(`${JSON.stringify(message, null, 2)}\n`);
  return EXIT.OK;
}

/** The parser: the named family, else the one a template speaks (its family, or a derived grammar). */
async function chooseParser(flags: ParseFlags, io: IO): Promise<{ family: ParseOptions['family']; id?: FamilyId; prefix?: string; diagnostic?: Diagnostic }> {
  if (flags.family !== undefined) {
    const id = resolveFamilyId(flags.family);
    if (id === undefined) throw new UserError(`unknown family "${flags.family}" (known: ${familyIds.join(', ')})`);
    // The name as given: a variant (qwq) sets its own default prefix.
    return { family: flags.family, id };
  }
  if (flags.template === undefined) throw new UserError(`no family: give --family <id> (one of ${familyIds.join(', ')}) or --template <model folder>`);
  const [{ loadTemplate }, { parserForTemplate }] = await Promise.all([import('../../render/index.js'), import('../../detect/index.js')]);
  const found = parserForTemplate(loadTemplate({ template: resolve(io.cwd, flags.template), templateName: flags.templateName }));
  const id = typeof found.family === 'string' ? resolveFamilyId(found.family) : undefined;
  return { family: found.family, ...(id ? { id } : {}), ...(found.prefix !== undefined ? { prefix: found.prefix } : {}), ...(found.diagnostic ? { diagnostic: found.diagnostic } : {}) };
}

async function streamParse(options: ParseOptions, io: IO): Promise<number> {
  const { createStreamParser } = await import('../../parse/index.js');
  const parser = createStreamParser(options);
  const decoder = new TextDecoder('utf-8');
  let failed = false;
  const print = (deltas: Delta[]) => {
    for (const delta of deltas) {
      io.stdout.write(`${JSON.stringify(delta)}\n`);
      if (delta.diagnostics?.some((d) => d.severity === 'error')) failed = true;
    }
  };
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
    print(parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })));
  }
  print(parser.push(decoder.decode()));
  print(parser.finish());
  return options.strict && failed ? EXIT.ISSUES : EXIT.OK;
}


/** Where each family's prompt opens the assistant turn; the prefix is what follows the last one. */
const ASSISTANT_HEADERS: Record<FamilyId, { header: string; also?: readonly string[]; keep?: boolean }> = {
  hermes: { header: '<|im_start|>assistant' },
  'qwen2.5': { header: '<|im_start|>assistant' },
  qwen3: { header: '<|im_start|>assistant' },
  'qwen3-coder': { header: '<|im_start|>assistant' },
  'deepseek-v3.1': { header: '<｜Assistant｜>' },
  'deepseek-r1': { header: '<｜Assistant｜>' },
  'kimi-k2': { header: '<|im_assistant|>assistant<|im_middle|>' },
  // The harmony parser reads the header itself, so the prefix keeps it.
  'gpt-oss': { header: '<|start|>assistant', keep: true },
  'glm-4.5': { header: '<|assistant|>' },
  'seed-oss': { header: '<seed:bos>assistant' },
  'deepseek-v3.2': { header: '<｜Assistant｜>' },
  'minimax-m2': { header: ']~b]ai' },
  'llama-3': { header: '<|start_header_id|>assistant<|end_header_id|>' },
  // No generation prompt: the reply follows [/INST] or, after tool results, [/TOOL_RESULTS].
  mistral: { header: '[/INST]', also: ['[/TOOL_RESULTS]'] },
  'gemma-4': { header: '<|turn>model' },
};

export function promptTail(prompt: string, family: FamilyId): string {
  const { header, also = [], keep } = ASSISTANT_HEADERS[family];
  let at = prompt.lastIndexOf(header);
  let length = header.length;
  for (const other of also) {
    const found = prompt.lastIndexOf(other);
    if (found > at) [at, length] = [found, other.length];
  }
  if (at < 0) return prompt;
  return keep ? prompt.slice(at) : prompt.slice(at + length);
}

import { familyIds, familyInfo, resolveFamilyId, unknownFamilyMessage, type FamilyId } from '../../families/info.js';
import { promptTail } from '../../parse/assistant-headers.js';
import type { ParseOptions, ResponseTemplateParseOptions, StreamParser } from '../../parse/index.js';
import type { LoadedTemplate } from '../../render/types.js';
import type { Delta, Diagnostic } from '../../types.js';
import { EXIT, UserError, type IO } from '../io.js';
import { collect, parseVariables, readToolsFile } from '../options.js';
import { boundedChunks } from '../input.js';
import { withOutput } from '../output.js';
import { templatePath } from '../template-path.js';
import { maxInputBytes, parseNow, readInputText } from '../read-input.js';
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
  openai?: boolean;
  var: string[];
  now?: string;
}

const HELP = `
Input: the raw completion text (special tokens kept), from a file or stdin ("-" or none). Bytes that
are not UTF-8 (a completion cut inside a character at max_tokens) become U+FFFD, with and without
--stream alike. Inputs (the completion, --tools, --prompt) stop at 256 MiB, or CHATFMT_MAX_INPUT_BYTES.
Output: {role, content, reasoning_content, tool_calls, diagnostics} as JSON; with --stream,
one OpenAI chunk delta per line as soon as it is known, then the rest at the end of input.

The prompt decides where the completion starts: a prompt ending in "<think>\\n" means the
completion begins inside reasoning. Give that tail with --prefix, or the whole rendered
prompt with --prompt (its text after the last assistant header is used). Without either,
the family's usual generation prompt is assumed.

Malformed or truncated calls never fail the command: their text stays in content and a
diagnostic says why. --strict turns an error diagnostic into exit code 1.
Exit codes: 0 parsed, 1 --strict found an error, the output did not fit the response template, or
the output could not be written, 2 usage or I/O error (a missing file, an input over the size limit).

Without --family, --template names the model's template (a model folder, tokenizer_config.json or
.jinja). When its tokenizer_config.json has a "response_template" (or a legacy "response_schema"),
chatfmt runs it exactly as transformers' parse_response does and prints transformers' dict; --prefix
or --prompt is its prefix= (default ""), --openai maps the dict onto {content, reasoning_content,
tool_calls} (failures then stay content with a diagnostic instead of failing with exit 1). Otherwise
chatfmt uses the family whose template renders like it, and else derives the call syntax from probe
renders of the template (a PARSE_GRAMMAR_DERIVED warning says what it found), and else takes the family
it resembles most (a PARSE_FAMILY_UNVERIFIED warning says how weak the evidence is). A tie between
families, or markers alone pointing at a family whose parser cannot read the template's calls, is an
error (exit 2): the family is ambiguous or unknown, give --family. --var and --now shape those probe
renders (a bare .jinja that needs bos_token: --var bos_token='<|begin_of_text|>').

Examples:
  chatfmt parse --family qwen3 completion.txt
  chatfmt parse --template ~/models/My-Finetune completion.txt
  chatfmt parse --template ~/models/Qwen3-8B --openai completion.txt
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
    .option('--var <key=value>', 'with --template: a template variable for the probe renders (a bare .jinja that needs bos_token); repeatable', collect, [])
    .option('--now <iso>', 'with --template: the clock for strftime_now in the probe renders')
    .option('--strict', 'exit 1 on the first error diagnostic')
    .option('--stream', 'read stdin as it arrives and print one delta per line')
    .option('--openai', 'with a response template: print the OpenAI message (or deltas), not transformers\' dict')
    .option('--json', 'print JSON (the default; accepted for symmetry with the other commands)')
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: ParseFlags) => {
      state.exitCode = await withOutput(io, flags.output, (out) => runParse(file, flags, out));
    });
};

async function runParse(file: string | undefined, flags: ParseFlags, io: IO): Promise<number> {
  if (flags.prefix !== undefined && flags.prompt !== undefined) throw new UserError('give either --prefix or --prompt, not both');
  if ((flags.var.length > 0 || flags.now !== undefined) && flags.template === undefined) throw new UserError('--var and --now shape the probe renders of --template; give --template');
  if (flags.family === undefined && flags.template !== undefined) {
    const template = await loadFromFlags(flags, io);
    if (template.responseTemplate) return responseTemplateParse(file, template.responseTemplate, flags, io);
    if (template.responseTemplateError) {
      throw new UserError(`${template.responseTemplateError} (give --family to parse with a chatfmt family instead)`);
    }
  }
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
  const message = parse(await readCompletion(file, io), options);
  message.diagnostics.unshift(...notes);
  io.stdout.write(`${JSON.stringify(message, null, 2)}\n`);
  return EXIT.OK;
}

/** The parser: the named family, else the one a template speaks (its family, or a derived grammar). */
async function chooseParser(flags: ParseFlags, io: IO): Promise<{ family: ParseOptions['family']; id?: FamilyId; prefix?: string; diagnostic?: Diagnostic }> {
  if (flags.family !== undefined) {
    const id = resolveFamilyId(flags.family);
    if (id === undefined) throw new UserError(unknownFamilyMessage(flags.family));
    // The name as given: a variant (qwq) sets its own default prefix.
    return { family: flags.family, id };
  }
  if (flags.template === undefined) throw new UserError(`no family: give --family <id> (one of ${familyIds.join(', ')}) or --template <model folder>`);
  const { parserForTemplate } = await import('../../detect/index.js');
  const variables = parseVariables(flags.var);
  const now = parseNow(flags.now);
  const found = parserForTemplate(await loadFromFlags(flags, io), { ...(variables ? { variables } : {}), ...(now ? { now } : {}) });
  const id = typeof found.family === 'string' ? resolveFamilyId(found.family) : undefined;
  return { family: found.family, ...(id ? { id } : {}), ...(found.prefix !== undefined ? { prefix: found.prefix } : {}), ...(found.diagnostic ? { diagnostic: found.diagnostic } : {}) };
}

async function loadFromFlags(flags: ParseFlags, io: IO): Promise<LoadedTemplate> {
  const { loadTemplate } = await import('../../node/load.js');
  return loadTemplate({ template: templatePath(flags.template!, io), templateName: flags.templateName });
}

/**
 * The model's own response template. Dict mode is transformers' parse_response: its exception (the model's output did
 * not fit the template) is one `chatfmt:` line and exit 1; a bad template is exit 2.
 */
async function responseTemplateParse(file: string | undefined, template: Record<string, unknown>, flags: ParseFlags, io: IO): Promise<number> {
  const options: ResponseTemplateParseOptions = { responseTemplate: template, strict: flags.strict === true };
  if (flags.tools !== undefined) options.tools = await readToolsFile(flags.tools, io);
  if (flags.prefix !== undefined) options.prefix = flags.prefix;
  // transformers cuts the prompt after the template's start anchor itself.
  if (flags.prompt !== undefined) options.prefix = await readInputText(flags.prompt, io);
  const { parse, createStreamParser } = await import('../../parse/index.js');
  if (flags.openai) {
    if (flags.stream) return streamDeltas(createStreamParser({ ...options, output: 'openai' }), file, flags, io);
    const message = parse(await readCompletion(file, io), { ...options, output: 'openai' });
    io.stdout.write(`${JSON.stringify(message, null, 2)}\n`);
    return EXIT.OK;
  }
  return modelFailure(async () => {
    if (flags.stream) {
      // transformers' events, one per line as they settle, then the dict.
      const parser = createStreamParser({ ...options, output: 'dict' });
      const print = (events: unknown[]) => {
        for (const event of events) io.stdout.write(`${JSON.stringify(event)}\n`);
      };
      print(parser.initialEvents);
      await eachStdinText(file, io, (text) => print(parser.push(text)));
      const { message, events } = parser.finish();
      print(events);
      io.stdout.write(`${JSON.stringify({ message })}\n`);
    } else {
      const message = parse(await readCompletion(file, io), { ...options, output: 'dict' });
      io.stdout.write(`${JSON.stringify(message, null, 2)}\n`);
    }
    return EXIT.OK;
  });
}

/** transformers raising on the model's output (not on the template) is exit 1, like --strict. */
async function modelFailure(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    const { isOutputMismatch } = await import('../../parse/response.js');
    if (isOutputMismatch(error)) {
      const { pythonType, message } = error as { pythonType: string; message: string };
      throw new UserError(`${pythonType}: ${message}`.replace(/\s+/g, ' '), EXIT.ISSUES);
    }
    throw error;
  }
}

async function streamParse(options: ParseOptions, io: IO): Promise<number> {
  const { createStreamParser } = await import('../../parse/index.js');
  return streamDeltas(createStreamParser(options), undefined, { strict: options.strict === true }, io);
}

async function streamDeltas(parser: StreamParser, file: string | undefined, flags: { strict?: boolean }, io: IO): Promise<number> {
  let failed = false;
  const print = (deltas: Delta[]) => {
    for (const delta of deltas) {
      io.stdout.write(`${JSON.stringify(delta)}\n`);
      if (delta.diagnostics?.some((d) => d.severity === 'error')) failed = true;
    }
  };
  await eachStdinText(file, io, (text) => print(parser.push(text)));
  print(parser.finish());
  return flags.strict && failed ? EXIT.ISSUES : EXIT.OK;
}

/**
 * A completion, batch or streamed, is decoded the same way: bytes that are not UTF-8 become U+FFFD (a completion cut at
 * max_tokens can end inside a character), and a leading byte-order mark is dropped.
 */
function readCompletion(file: string | undefined, io: IO): Promise<string> {
  return readInputText(file, io, { utf8: 'replace' });
}

/** --stream: stdin decoded as it arrives (a multi-byte character split across reads waits for its rest), bounded like a batch read. */
async function eachStdinText(file: string | undefined, io: IO, take: (text: string) => void): Promise<void> {
  if (file !== undefined && file !== '-') throw new UserError('--stream reads stdin; drop the file argument');
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of boundedChunks(io.stdin as AsyncIterable<Buffer>, 'stdin', maxInputBytes(io))) take(decoder.decode(chunk, { stream: true }));
  take(decoder.decode());
}

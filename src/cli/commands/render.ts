import { Option } from 'commander';
import { ChatfmtError, inContext } from '../../errors.js';
import { familyIds } from '../../families/info.js';
import { parsePythonJson } from '../../jinja/index.js';
import { loadTemplate, renderConversation, type ArgsMode, type LoadedTemplate, type RenderOptions } from '../../render/index.js';
import type { Conversation } from '../../types.js';
import { EXIT, UserError } from '../io.js';
import { collect, parseVariables } from '../options.js';
import { parseNow, readInputText } from '../read-input.js';
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
}

const HELP = `
Input: a JSON object {messages, tools?, documents?, add_generation_prompt?, ...variables},
or JSONL with one such object per line (then one JSON line is printed per input:
{"text": ...} or {"error": ...}). Without a file, or with "-", stdin is read.

The text is printed exactly as the template renders it, with no newline added.
Exit codes: 0 rendered, 1 the template rejected the input, 2 usage, I/O or template syntax error.

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
    .addOption(new Option('--args <mode>', 'auto: convert arguments/null content to what the template needs; keep: pass messages through').choices(['auto', 'keep']).default('auto'))
    .option('--now <iso>', 'clock for strftime_now, e.g. 2025-01-15T12:00:00 (UTC unless a zone is given)')
    .option('--json', 'print {text, generation_spans} instead of the bare text')
    .addHelpText('after', HELP)
    .action(async (file: string | undefined, flags: RenderFlags) => {
      state.exitCode = await runRender(file, flags, io);
    });
};

async function runRender(file: string | undefined, flags: RenderFlags, io: Parameters<CommandRegistrar>[1]): Promise<number> {
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
  const text = await readInputText(file, io);
  const batch = isBatchInput(file, text);
  if (!batch) {
    const result = renderConversation(loaded, toConversation(parseJson(text)), options);
    io.stdout.write(flags.json ? `${JSON.stringify({ text: result.text, generation_spans: result.generationSpans })}\n` : result.text);
    return EXIT.OK;
  }
  return renderLines(text, loaded, options, flags.json === true, io);
}

/** JSONL: one result line per input line; a bad line is reported on its own line and the run goes on. */
function renderLines(text: string, loaded: LoadedTemplate, options: RenderOptions, json: boolean, io: Parameters<CommandRegistrar>[1]): number {
  let failed = false;
  let out = '';
  let lineNumber = 0;
  for (const line of text.split('\n')) {
    lineNumber++;
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      const result = renderConversation(loaded, toConversation(parseJson(line)), options);
      record = json ? { text: result.text, generation_spans: result.generationSpans } : { text: result.text };
    } catch (error) {
      if (error instanceof ChatfmtError && (error.code === 'TEMPLATE_SYNTAX' || error.code === 'TEMPLATE_SOURCE')) throw error;
      failed = true;
      record = { error: inContext(`line ${lineNumber}`, error instanceof Error ? error.message : String(error)) };
    }
    out += `${JSON.stringify(record)}\n`;
    if (out.length > 1 << 20) {
      io.stdout.write(out);
      out = '';
    }
  }
  io.stdout.write(out);
  return failed ? EXIT.ISSUES : EXIT.OK;
}

function isBatchInput(file: string | undefined, text: string): boolean {
  if (file?.endsWith('.jsonl')) return true;
  const trimmed = text.trim();
  // One object spread over several lines is a single conversation; several top-level lines are JSONL.
  if (!trimmed.startsWith('{')) return false;
  const firstBreak = trimmed.indexOf('\n');
  if (firstBreak < 0) return false;
  try {
    JSON.parse(trimmed.slice(0, firstBreak));
    return true;
  } catch {
    return false;
  }
}

function parseJson(text: string): unknown {
  try {
    return parsePythonJson(text);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function toConversation(value: unknown): Conversation {
  const record = value instanceof Map ? Object.fromEntries(value) : value;
  if (!record || typeof record !== 'object' || Array.isArray(record) || !Array.isArray((record as Conversation).messages)) {
    throw new ChatfmtError('INPUT_INVALID', 'expected a JSON object with a "messages" array');
  }
  return record as Conversation;
}

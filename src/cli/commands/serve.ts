import { resolve } from 'node:path';
import { Option } from 'commander';
import { familyIds } from '../../families/info.js';
import { UserError, type IO } from '../io.js';
import { untilInterrupted } from '../signals.js';
import type { CommandRegistrar } from './index.js';

interface ServeFlags {
  backend?: string;
  backendKind?: 'llama.cpp' | 'openai' | 'ollama';
  family?: string;
  template?: string;
  templateName?: string;
  modelName?: string;
  port: string;
  host: string;
  apiKey?: string;
  repair?: boolean | string;
  reasoningField: 'reasoning_content' | 'reasoning' | 'both';
  maxBodyBytes: string;
  maxConcurrency: string;
  timeout: string;
  bodyTimeout: string;
  log: boolean;
  warmUp: boolean;
}

const HELP = `
chatfmt serve sits between agent clients and a plain completion endpoint. Clients speak their own protocol
(OpenAI Chat at POST /v1/chat/completions, Anthropic Messages at POST /v1/messages and /v1/messages/count_tokens,
OpenAI Responses at POST /v1/responses; GET /v1/models, GET /health); chatfmt writes the prompt in the model's
trained format (byte-identical to \`chatfmt render -g\`), sends it raw with the family's stop strings, and parses the
text with the family's streaming parser, so every call the model makes reaches the client as a call.

Backend kinds (--backend-kind; guessed from the URL when omitted, and the guess is printed):
  llama.cpp   llama.cpp's server, POST <backend>/completion
  openai      OpenAI-style completions, POST <backend>/completions (--backend ends in /v1: vLLM, SGLang,
              llama.cpp, LM Studio, TGI)
  ollama      Ollama, POST <backend>/api/generate with raw: true

Keys: clients must send --api-key (or CHATFMT_API_KEY) as "Authorization: Bearer <key>" or "x-api-key: <key>".
Listening on anything but a loopback address without a key is refused. The backend's own key is read from
CHATFMT_BACKEND_KEY, never from the command line.

Diagnostics (a malformed call kept as text, an unknown tool) are never dropped: streams carry them in
"chatfmt_diagnostics" chunks, whole answers in "chatfmt_diagnostics" and the x-chatfmt-diagnostics header.
One JSON access-log line per request goes to stderr (--no-log to silence).

Before it says it is listening, the gateway runs one exchange against stand-ins (never the backend): the template's
first render, the parser's first parse and Node's HTTP client load then, not on a client's first request
(--no-warm-up to skip).

Examples:
  chatfmt serve --backend http://127.0.0.1:8080 --backend-kind llama.cpp --family qwen3 --port 4000
  chatfmt serve --backend http://127.0.0.1:8000/v1 --backend-kind openai --template ./Qwen3-8B
  chatfmt serve --backend http://127.0.0.1:11434 --backend-kind ollama --family gpt-oss
  chatfmt serve --repair --backend http://127.0.0.1:11434/v1 --family qwen3-coder

Families: ${familyIds.join(', ')}`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('serve')
    .summary('serve OpenAI-compatible chat in front of a raw completion endpoint, in the model\'s own format')
    .description('A gateway: clients speak OpenAI Chat; chatfmt renders the prompt with the model\'s template, calls a raw completion backend and parses its output into content, reasoning and tool calls.')
    .requiredOption('--backend <url>', 'the backend\'s base URL (http://127.0.0.1:8080, http://127.0.0.1:8000/v1, http://127.0.0.1:11434)')
    .addOption(new Option('--backend-kind <kind>', 'the backend\'s API (default: guessed from the URL)').choices(['llama.cpp', 'openai', 'ollama']))
    .option('--family <id>', 'the model\'s family (see `chatfmt families`)')
    .option('--template <file|dir>', 'the model\'s template: a .jinja file, a tokenizer_config.json or a model folder')
    .option('--template-name <name>', 'a named template from the config')
    .option('--model-name <name>', 'the model name sent to the backend and listed by /v1/models (default: the family or folder name)')
    .option('--port <n>', 'port to listen on', '4000')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--api-key <key>', 'the key clients must send (default: $CHATFMT_API_KEY)')
    .option('--repair [mode]', 'in front of an OpenAI-compatible chat endpoint: re-parse what it failed to split (mode: lenient also recovers bare JSON calls)')
    .addOption(new Option('--reasoning-field <field>', 'where reasoning goes in OpenAI answers').choices(['reasoning_content', 'reasoning', 'both']).default('reasoning_content'))
    .option('--max-body-bytes <n>', 'largest request body (413 beyond)', String(4 * 1024 * 1024))
    .option('--max-concurrency <n>', 'requests served at once (429 beyond)', '64')
    .option('--timeout <seconds>', 'longest wait for the backend\'s first byte or next chunk', '120')
    .option('--body-timeout <seconds>', 'longest wait for a request\'s whole body after its headers (408 beyond; 0: no limit)', '30')
    .option('--no-log', 'no access-log lines on stderr')
    .option('--no-warm-up', 'listen at once, without first running one exchange against stand-ins (the first request then pays for it)')
    .addHelpText('after', HELP)
    .action(async (flags: ServeFlags) => {
      state.exitCode = await runServe(flags, io);
    });
};

function positiveInteger(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new UserError(`${flag} ${value}: expected a whole number`);
  return number;
}

async function runServe(flags: ServeFlags, io: IO): Promise<number> {
  if (flags.family !== undefined && flags.template !== undefined) throw new UserError('give either --family or --template, not both');
  if (flags.family === undefined && flags.template === undefined) throw new UserError('no model format: give --family <id> or --template <file|dir>');
  let backendUrl: URL;
  try {
    backendUrl = new URL(flags.backend!);
  } catch {
    throw new UserError(`--backend ${flags.backend}: not a URL (e.g. http://127.0.0.1:8080)`);
  }
  if (backendUrl.protocol !== 'http:' && backendUrl.protocol !== 'https:') throw new UserError(`--backend ${flags.backend}: expected an http:// or https:// URL`);
  const repair = flags.repair === undefined || flags.repair === false ? false : flags.repair === true ? 'strict' : flags.repair;
  if (repair !== false && repair !== 'strict' && repair !== 'lenient') throw new UserError(`--repair ${String(flags.repair)}: the only mode is "lenient"`);
  const { createGateway, loadGatewayModel, guessBackendKind } = await import('../../gateway/index.js');
  const { model, note } = loadGatewayModel({
    ...(flags.family !== undefined ? { family: flags.family } : { template: resolve(io.cwd, flags.template!) }),
    ...(flags.templateName ? { templateName: flags.templateName } : {}),
    ...(flags.modelName ? { name: flags.modelName } : {}),
  });
  if (note) io.stderr.write(`chatfmt serve: ${note.message}\n`);
  let kind = flags.backendKind;
  if (!kind && !repair) {
    kind = guessBackendKind(backendUrl.href);
    io.stderr.write(`chatfmt serve: --backend-kind not given; guessed "${kind}" from the URL\n`);
  }
  const apiKey = flags.apiKey ?? io.env.CHATFMT_API_KEY;
  const backendKey = io.env.CHATFMT_BACKEND_KEY;
  const gateway = createGateway({
    model,
    backend: { url: flags.backend!, ...(kind ? { kind } : {}), ...(backendKey ? { apiKey: backendKey } : {}) },
    ...(apiKey ? { apiKey } : {}),
    repair,
    reasoningField: flags.reasoningField,
    maxBodyBytes: positiveInteger(flags.maxBodyBytes, '--max-body-bytes'),
    maxConcurrency: positiveInteger(flags.maxConcurrency, '--max-concurrency'),
    timeoutMs: positiveInteger(flags.timeout, '--timeout') * 1000,
    bodyTimeoutMs: positiveInteger(flags.bodyTimeout, '--body-timeout') * 1000 || Infinity,
    ...(flags.log ? { log: (entry) => io.stderr.write(`${JSON.stringify(entry)}\n`) } : {}),
  });
  let listening: Awaited<ReturnType<typeof gateway.listen>>;
  try {
    listening = await gateway.listen(positiveInteger(flags.port, '--port'), flags.host);
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error));
  }
  // Before the line that says it is ready: a client that waits for it gets a first answer as fast as later ones.
  if (flags.warmUp) await gateway.warmUp();
  const target = repair ? `repair ${flags.backend}` : `${kind} ${flags.backend}`;
  io.stderr.write(`chatfmt serve: ${model.name} on ${listening.url} (OpenAI Chat: ${listening.url}/v1/chat/completions) → ${target}\n`);
  // Runs until SIGINT or SIGTERM; open streams are closed with the server.
  await untilInterrupted();
  await listening.close();
  io.stderr.write('chatfmt serve: stopped\n');
  return 0;
}

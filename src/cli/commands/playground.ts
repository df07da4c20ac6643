import { UserError, type IO } from '../io.js';
import { untilInterrupted } from '../signals.js';
import type { CommandRegistrar } from './index.js';

interface PlaygroundFlags {
  port: string;
  host: string;
  allowRemote?: boolean;
}

const HELP = `
chatfmt playground serves a page for trying templates and parsers by hand, at the URL it prints. Everything runs in
the page (chatfmt's browser core, bundled into it): nothing is fetched from the network, nothing is sent anywhere.

In the page:
  - write messages and tools (JSON) and pick a template: a family, a family's official template to edit, or a model
    folder's files dropped on the page (tokenizer_config.json, chat_template.jinja, chat_template.json);
  - see the rendered prompt with special tokens, the generation prompt and the assistant's {% generation %} spans
    marked; detect's verdict on the template and its warnings;
  - drop a tokenizer.json to see how many tokens each message costs;
  - paste a completion and parse it whole, or replay it chunk by chunk (chunk size, Step, Replay) to watch the
    streaming parser: content, reasoning_content, tool_calls and diagnostics.
The page keeps its state in the URL (#…), so a link reproduces it; a dropped tokenizer.json is not kept in links.

It listens on 127.0.0.1 unless told otherwise. Another address must be a loopback one (127.x.x.x, ::1, localhost)
unless --allow-remote is given: the page is harmless, but other machines have no business reaching it by accident.

Exit codes: 0 stopped (Ctrl-C), 1 the output could not be written, 2 usage error (a non-loopback --host without
--allow-remote, a port in use, the page not built and esbuild missing).

Examples:
  chatfmt playground                  # http://127.0.0.1:4600/
  chatfmt playground --port 0         # any free port; the URL says which`;

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('playground')
    .summary('serve a local page to try templates, token counts and parsing interactively')
    .description('Serve the playground page: render, detect, count tokens and parse completions (whole or chunk by chunk) in the browser.')
    .option('--port <n>', 'port to listen on (0: any free port)', '4600')
    .option('--host <address>', 'address to listen on (loopback unless --allow-remote)', '127.0.0.1')
    .option('--allow-remote', 'allow a --host other machines can reach')
    .addHelpText('after', HELP)
    .action(async (flags: PlaygroundFlags) => {
      state.exitCode = await runPlayground(flags, io);
    });
};

async function runPlayground(flags: PlaygroundFlags, io: IO): Promise<number> {
  const port = Number(flags.port);
  if (!/^\d+$/.test(flags.port) || port > 65535) throw new UserError(`--port ${flags.port}: expected a port number from 0 to 65535`);
  const { isLoopbackHost, startPlaygroundServer } = await import('../../playground/node/server.js');
  if (!isLoopbackHost(flags.host) && !flags.allowRemote) {
    throw new UserError(`--host ${flags.host} is not a loopback address: other machines could open the playground; add --allow-remote to mean it`);
  }
  const { playgroundScript } = await import('../../playground/node/bundle.js');
  let script: Awaited<ReturnType<typeof playgroundScript>>;
  try {
    script = await playgroundScript();
  } catch (error) {
    throw new UserError((error as Error).message);
  }
  if (script.note) io.stderr.write(`chatfmt playground: ${script.note}\n`);
  let server: Awaited<ReturnType<typeof startPlaygroundServer>>;
  try {
    server = await startPlaygroundServer(script.text, port, flags.host);
  } catch (error) {
    throw new UserError(`cannot listen on ${flags.host}:${port}: ${(error as Error).message}`);
  }
  io.stdout.write(`${server.url}\n`);
  io.stderr.write('chatfmt playground: open the URL above; Ctrl-C stops it\n');
  await untilInterrupted();
  await server.close();
  return 0;
}

import { Command, CommanderError } from 'commander';
import { ChatfmtError } from '../errors.js';
import { EXIT, UserError, escapeLineBreaks, type IO } from './io.js';
import { registerCommands } from './commands/index.js';

/**
 * Builds the commander program for `argv` (only the commands it can reach are loaded); every command writes through
 * `io` and sets `state.exitCode`.
 */
export async function buildProgram(io: IO, state: { exitCode: number }, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('chatfmt')
    .description('Render, parse, convert and validate the chat formats of open LLM families.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors read like every other error: one `chatfmt:` line, pointing at --help.
      outputError: (s, write) => write(`chatfmt: ${oneLine(s.replace(/^error:\s*/, ''))} (see --help)\n`),
    });
  await registerCommands(program, io, state, argv);
  return program;
}

/** Runs the CLI in-process and resolves to the exit code. Never throws, never prints a stack trace. */
export async function run(argv: string[], io: IO): Promise<number> {
  const state = { exitCode: EXIT.OK as number };
  try {
    const program = await buildProgram(io, state, argv);
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: IO): number {
  if (error instanceof CommanderError) {
    // Help and version exit through here with code 0; usage errors were already printed by commander.
    return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  if (error instanceof UserError) {
    io.stderr.write(`chatfmt: ${escapeLineBreaks(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof ChatfmtError) {
    io.stderr.write(`chatfmt: ${escapeLineBreaks(error.message.trim())}\n`);
    return error.code === 'TEMPLATE_RAISED' || error.code === 'TEMPLATE_RUNTIME' || error.code === 'TEMPLATE_LIMIT' || error.code === 'PARSE_STRICT'
      ? EXIT.ISSUES
      : EXIT.USAGE;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`chatfmt: internal error: ${escapeLineBreaks(message)}\n`);
  return EXIT.USAGE;
}

/** Error text on one line; split-based so a long run of spaces cannot make it quadratic. */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

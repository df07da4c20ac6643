import type { Command } from 'commander';
import type { IO } from '../io.js';

export type CommandRegistrar = (program: Command, io: IO, state: { exitCode: number }) => void;

// One file per command; each exports `register`, and loads what its action needs only when the action runs.
// Loaded on demand: `chatfmt render` never reads the files of the seven other commands.
const commands: Record<string, () => Promise<{ register: CommandRegistrar }>> = {
  render: () => import('./render.js'),
  families: () => import('./families.js'),
  detect: () => import('./detect.js'),
  parse: () => import('./parse.js'),
  validate: () => import('./validate.js'),
  convert: () => import('./convert.js'),
  transpile: () => import('./transpile.js'),
  serve: () => import('./serve.js'),
  playground: () => import('./playground.js'),
};

export const commandNames = Object.keys(commands);

/** The words commander answers with the version before it looks at any command. */
const versionFlags = new Set(['-V', '--version']);

/**
 * Registers the commands `argv` can reach: none for --version, the one its first word names, or, when that is not a
 * command (top-level help, `help <command>`, a misspelt name that gets a suggestion), all of them, in the order help
 * lists them.
 */
export async function registerCommands(program: Command, io: IO, state: { exitCode: number }, argv: readonly string[]): Promise<void> {
  if (argv[0] !== undefined && versionFlags.has(argv[0])) return;
  const named = argv[0] !== undefined && Object.hasOwn(commands, argv[0]) ? [argv[0]] : commandNames;
  const modules = await Promise.all(named.map((name) => commands[name]!()));
  for (const { register } of modules) register(program, io, state);
}

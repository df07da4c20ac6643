import type { Command } from 'commander';
import type { IO } from '../io.js';

export type CommandRegistrar = (program: Command, io: IO, state: { exitCode: number }) => void;

// One file per command; each exports `register`.
const registrars: CommandRegistrar[] = [];

export function registerCommands(program: Command, io: IO, state: { exitCode: number }): void {
  for (const register of registrars) register(program, io, state);
}

import type { Command } from 'commander';
import type { IO } from '../io.js';
import { register as render } from './render.js';
import { register as families } from './families.js';
import { register as detect } from './detect.js';
import { register as parse } from './parse.js';
import { register as validate } from './validate.js';
import { register as convert } from './convert.js';
import { register as transpile } from './transpile.js';
import { register as serve } from './serve.js';
import { register as playground } from './playground.js';

export type CommandRegistrar = (program: Command, io: IO, state: { exitCode: number }) => void;

// One file per command; each exports `register`.
const registrars: CommandRegistrar[] = [render, families, detect, parse, validate, convert, transpile, serve, playground];

export function registerCommands(program: Command, io: IO, state: { exitCode: number }): void {
  for (const register of registrars) register(program, io, state);
}

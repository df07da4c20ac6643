import { Readable } from 'node:stream';
import { oneLine } from '../util/one-line.js';

/** Everything a command touches outside the library: tests pass a fake, bin passes the process. */
export interface IO {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /** True when stdout / stderr are terminals: enables colour and progress bars. */
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  cwd: string;
  env: Record<string, string | undefined>;
}

export const EXIT = { OK: 0, ISSUES: 1, USAGE: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A problem with how chatfmt was called or with its files: one line on stderr, exit 2. */
export class UserError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode = EXIT.USAGE) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** A message on one line (see oneLine), for each `chatfmt:` line and summary line. */
export const escapeLineBreaks = oneLine;

export function processIO(): IO {
  return {
    // Read on use: creating process.stdin costs milliseconds when it is a pipe, and most runs read files.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
    env: process.env,
  };
}

/** `io` writing its results to `stdout` instead (a `-o` file); its getters stay getters, so stdin is still read on use. */
export function withStdout(io: IO, stdout: IO['stdout']): IO {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as IO;
  copy.stdout = stdout;
  copy.stdoutIsTTY = false;
  return copy;
}

/** An in-memory IO for tests: collects output, feeds the given stdin. */
export function memoryIO(stdinText = '', cwd = process.cwd()): IO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdin: Readable.from([Buffer.from(stdinText, 'utf8')]),
    stdout: { write: (chunk: string) => { out += chunk; return true; } },
    stderr: { write: (chunk: string) => { err += chunk; return true; } },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd,
    env: {},
    out: () => out,
    err: () => err,
  };
}

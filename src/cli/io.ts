import { oneLine } from '../util/one-line.js';
import { DirectStdout, type StreamFailure } from './stdout.js';

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

/**
 * The process's streams, each created on first use and then given to `watch` (which handles its errors): stdin and
 * stderr as process.stdin and process.stderr, stdout written directly (stdout.ts). Creating a stream for a pipe costs
 * milliseconds of start-up, and most runs read files and write a file or stdout alone. Without `watch` and `fail` (a
 * caller that runs commands in its own process, as the benches do) stream errors are left to Node, and a failed
 * direct write throws.
 */
export function processIO(
  watch: (name: 'stdout' | 'stderr', stream: NodeJS.WriteStream) => void = () => {},
  fail: StreamFailure = (error) => {
    throw error;
  },
): IO {
  let stderr: NodeJS.WriteStream | undefined;
  const stdout = new DirectStdout(() => {
    watch('stdout', process.stdout);
    return process.stdout;
  }, fail);
  const errors = () => {
    if (stderr === undefined) {
      stderr = process.stderr;
      watch('stderr', stderr);
    }
    return stderr;
  };
  return {
    get stdin() {
      return process.stdin;
    },
    stdout,
    get stderr() {
      return errors();
    },
    get stdoutIsTTY() {
      return stdout.isTTY;
    },
    get stderrIsTTY() {
      return Boolean(errors().isTTY);
    },
    cwd: process.cwd(),
    env: process.env,
  };
}

/** `io` writing its results to `stdout` instead (a `-o` file); its getters stay getters, so stdin is still read on use. */
export function withStdout(io: IO, stdout: IO['stdout']): IO {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as IO;
  // Defined, not assigned: the process's IO has getters there.
  const plain = { enumerable: true, configurable: true, writable: true };
  return Object.defineProperties(copy, { stdout: { ...plain, value: stdout }, stdoutIsTTY: { ...plain, value: false } });
}

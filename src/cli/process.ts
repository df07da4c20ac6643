import { run } from './main.js';
import { processIO } from './io.js';
import { cannotWrite } from './output.js';

/**
 * The `chatfmt` executable. A failing stdout or stderr ends the run here, as one line rather than a stack trace: a
 * reader that stopped early (`chatfmt ... | head -1`, EPIPE) ends it quietly with exit 0, as a finished run would;
 * any other write error (ENOSPC, EIO) is `chatfmt: stdout: cannot write (...)` and exit 1.
 */
export async function main(argv: string[]): Promise<void> {
  const fail = (name: 'stdout' | 'stderr') => (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    if (name === 'stdout') {
      try {
        process.stderr.write(`chatfmt: ${cannotWrite('stdout', error).message}\n`);
      } catch {
        // stderr is gone too: the exit code is all that is left.
      }
    }
    process.exit(1);
  };
  // Each stream is created when first used (io.ts): its errors are handled from then on.
  const watch = (name: 'stdout' | 'stderr', stream: NodeJS.WriteStream) => void stream.on('error', fail(name));
  // Interrupted, the process still runs its exit handlers, which remove unfinished -o / --report temporary files.
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
  process.exitCode = await run(argv, processIO(watch, fail('stdout')));
}

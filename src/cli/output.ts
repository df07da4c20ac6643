import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { UserError, type IO } from './io.js';

/**
 * `-o FILE`: the command's IO with stdout going to FILE instead; `close` flushes it and reports a write error as one
 * line. Without a file, the IO itself. Writes honour backpressure through `drain` (see waitForDrain).
 */
export function outputTo(io: IO, file: string | undefined): { io: IO; close(): Promise<void> } {
  if (file === undefined || file === '-') return { io, close: async () => {} };
  const path = resolve(io.cwd, file);
  const stream = createWriteStream(path);
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure ??= error;
  });
  return {
    io: { ...io, stdout: stream, stdoutIsTTY: false },
    close: () =>
      new Promise<void>((done, fail) => {
        stream.end(() => (failure ? fail(new UserError(`${file}: cannot write (${failure.message})`)) : done()));
        stream.once('error', (error) => fail(new UserError(`${file}: cannot write (${error.message})`)));
      }),
  };
}

/**
 * Writes and, when the destination says it is full, waits for it to drain: a large batch keeps memory flat instead of
 * queueing every line. Destinations without 'drain' (test fakes) never report full.
 */
export async function writeOut(io: IO, text: string): Promise<void> {
  const stdout = io.stdout as { write(chunk: string): unknown; once?: (event: string, listener: () => void) => unknown; off?: (event: string, listener: () => void) => unknown };
  if (stdout.write(text) !== false || typeof stdout.once !== 'function') return;
  await new Promise<void>((done) => {
    const settle = () => {
      stdout.off?.('drain', settle);
      stdout.off?.('error', settle);
      done();
    };
    stdout.once!('drain', settle);
    stdout.once!('error', settle);
  });
}

import { writeSync } from 'node:fs';

/** How the process's standard stream fails a write: EPIPE ends the run quietly, anything else is one line, exit 1. */
export type StreamFailure = (error: NodeJS.ErrnoException) => void;

/**
 * The process's stdout, written with write(2) on descriptor 1 until a write would block; only then, or for an event
 * listener, is process.stdout created. Creating it costs a one-row run ~2 ms of its start when stdout is a pipe (it
 * loads node:net for a pipe, node:tty for a terminal). On Linux process.stdout writes synchronously to files, pipes and
 * terminals alike, so a direct write blocks where it would have; a descriptor set non-blocking (EAGAIN) hands that
 * write and every later one to the stream, in order. Windows keeps the stream: its console takes UTF-16, not bytes.
 */
export class DirectStdout {
  private stream: NodeJS.WriteStream | undefined;

  constructor(
    private readonly open: () => NodeJS.WriteStream,
    private readonly fail: StreamFailure,
    direct = process.platform !== 'win32',
  ) {
    if (!direct) this.stream = open();
  }

  write(chunk: string): boolean {
    if (this.stream) return this.stream.write(chunk);
    const bytes = Buffer.from(chunk, 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(1, bytes, written);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
        this.fail(error as NodeJS.ErrnoException);
        return true;
      }
      return this.streamed().write(bytes.subarray(written));
    }
  }

  // A caller waiting for 'drain' got false from write, so the stream exists by then; these never create it for nothing.
  once(event: string, listener: () => void): this {
    this.streamed().once(event, listener);
    return this;
  }

  off(event: string, listener: () => void): this {
    this.stream?.off(event, listener);
    return this;
  }

  get isTTY(): boolean {
    return Boolean(this.streamed().isTTY);
  }

  private streamed(): NodeJS.WriteStream {
    this.stream ??= this.open();
    return this.stream;
  }
}

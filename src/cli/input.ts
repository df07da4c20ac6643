import { closeSync, constants, createReadStream, openSync, readSync, statSync, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError, type IO } from './io.js';

/** How long a named pipe given as an input may stay without a writer before chatfmt gives up on it. */
export const FIFO_WRITER_WAIT_MS = 2000;
const FIFO_POLL_MS = 25;
const FIFO_IDLE_POLL_MS = 5;

/** What an input path turned out to be, once opened. */
export interface OpenedInput {
  /** Bytes of the input, read as they are consumed. */
  stream: Readable;
  /** Size in bytes for a regular file; undefined for pipes and devices, which say nothing true about their length. */
  size: number | undefined;
}

/** The one-line reason a path cannot be read, by errno; a symlink loop is named as one, not as a missing file. */
export function describeOpenError(shown: string, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    ENOENT: 'no such file',
    ENOTDIR: 'no such file (a part of the path is not a folder)',
    ELOOP: 'too many levels of symbolic links (a symlink loop)',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'is a folder, expected a file',
    ENAMETOOLONG: 'file name too long',
    ENXIO: 'cannot be opened for reading (a socket or a device with nothing behind it)',
  };
  return new UserError(`${shown}: ${(code && why[code]) ?? `cannot read (${code ?? (error as Error).message})`}`);
}

function statInput(path: string, shown: string): Stats {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw describeOpenError(shown, error);
  }
  if (stats.isDirectory()) throw new UserError(`${shown}: is a folder, expected a file`);
  if (stats.isSocket()) throw new UserError(`${shown}: is a socket, expected a file`);
  return stats;
}

/**
 * Opens a path for reading, whatever it is: a file, a device, or a named pipe. Opening a named pipe with no writer
 * would block forever, so it is opened without blocking and given FIFO_WRITER_WAIT_MS for a writer to appear (the
 * usual `producer > pipe & chatfmt ... pipe` has one at once); with none, it is an error.
 */
export async function openInput(path: string, shown: string): Promise<OpenedInput> {
  const stats = statInput(path, shown);
  if (stats.isFIFO()) return { stream: await openFifo(path, shown), size: undefined };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (error) {
    throw describeOpenError(shown, error);
  }
  const stream = createReadStream('', { fd, highWaterMark: 1 << 20 });
  return { stream, size: stats.isFile() ? stats.size : undefined };
}

async function openFifo(path: string, shown: string): Promise<Readable> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw describeOpenError(shown, error);
  }
  const probe = Buffer.alloc(1 << 16);
  let first: Buffer | undefined;
  // A non-blocking read says which: bytes, EAGAIN (a writer, nothing written yet) or 0 (no writer has it open).
  for (let waited = 0; first === undefined; waited += FIFO_POLL_MS) {
    try {
      const n = readSync(fd, probe, 0, probe.length, null);
      if (n > 0) first = Buffer.from(probe.subarray(0, n));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
        closeSync(fd);
        throw describeOpenError(shown, error);
      }
      first = Buffer.alloc(0);
    }
    if (first !== undefined) break;
    if (waited >= FIFO_WRITER_WAIT_MS) {
      closeSync(fd);
      throw new UserError(`${shown}: a named pipe with no writer (start the program that writes to it first, or pipe into stdin)`);
    }
    await sleep(FIFO_POLL_MS);
  }
  const { Readable } = await import('node:stream');
  return Readable.from(fifoBytes(fd, first), { objectMode: false });
}

/**
 * The rest of a named pipe, read without blocking: when the writer is idle, the read says EAGAIN and the loop sleeps
 * briefly instead of parking a thread in read() (plain fs streams would, and a pipe can stay idle forever).
 */
async function* fifoBytes(fd: number, first: Buffer): AsyncGenerator<Buffer> {
  try {
    if (first.length > 0) yield first;
    const buffer = Buffer.alloc(1 << 16);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        await sleep(FIFO_IDLE_POLL_MS);
        continue;
      }
      if (n === 0) return;
      yield Buffer.from(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a whole input into memory, counting bytes whatever the source: a pipe or a device (/dev/zero) has no size to
 * check first, so the count is what stops it. Going over is one line naming the limit, and the source is released.
 */
export async function readAllBounded(chunks: AsyncIterable<Buffer | string>, shown: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of boundedChunks(chunks, shown, maxBytes)) {
    parts.push(chunk);
    total += chunk.length;
  }
  return Buffer.concat(parts, total);
}

/** The chunks of an input, failing with one line once they add up to more than maxBytes. */
export async function* boundedChunks(chunks: AsyncIterable<Buffer | string>, shown: string, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  try {
    for await (const chunk of chunks) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      total += buffer.length;
      if (total > maxBytes) throw tooLarge(shown, maxBytes);
      yield buffer;
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`${shown}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    (chunks as { destroy?: () => void }).destroy?.();
  }
}

export function tooLarge(shown: string, maxBytes: number): UserError {
  return new UserError(`${shown}: larger than ${maxBytes} bytes (the input limit)`);
}

/**
 * A dataset argument as the dataset readers take it: '-', a regular file by path (they stream it and show progress),
 * or anything else opened here (a named pipe waits for its writer as above, a device is streamed). A path that cannot
 * be opened is one line, named by errno.
 */
export async function datasetSource(file: string, cwd: string): Promise<string | Readable> {
  if (file === '-') return '-';
  const path = resolve(cwd, file);
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw describeOpenError(file, error);
  }
  // A folder is named by the dataset reader, in the words validate and convert use for it.
  if (stats.isFile() || stats.isDirectory()) return path;
  return (await openInput(path, file)).stream;
}

/** The dataset readers' `stdin` option: given only when the source is stdin, so reading a file never creates it. */
export function stdinOption(source: string | Readable, io: IO): { stdin?: NodeJS.ReadableStream } {
  return source === '-' ? { stdin: io.stdin } : {};
}

import { createWriteStream, fchmodSync, openSync, realpathSync, renameSync, statSync, unlinkSync, type Stats, type WriteStream } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { EXIT, UserError, withStdout, type IO } from './io.js';

/** A destination for a command's result (`-o`, `--report`) or stdout; every write is checked. */
export interface Output {
  /** The command's IO with stdout going here. */
  io: IO;
  /** Writes, waiting while the destination is full, so a large batch keeps memory flat; throws once a write failed. */
  write(text: string): Promise<void>;
}

type Destination = Output & {
  /** Flushes and puts the file in place (renames the temporary file over the target); one line if anything failed. */
  commit(): Promise<void>;
  /** The command failed: the target keeps what it had, the temporary file goes. */
  discard(): void;
};

/**
 * Runs `body` with its results going to the named files (or stdout for none / "-"). A regular file is written to a
 * temporary file beside it and renamed over it only when the command succeeds: a target that is also an input
 * (`render a.jsonl -o a.jsonl`) is read whole before it is replaced, and a failed run leaves it as it was. Devices and
 * pipes (/dev/null, /dev/stdout) are written directly. Two flags naming the same file are refused.
 */
export async function withOutputs<T>(io: IO, targets: Array<{ flag: string; file: string | undefined }>, body: (outputs: Output[]) => Promise<T>): Promise<T> {
  refuseSharedTargets(io, targets);
  const opened: Destination[] = [];
  try {
    for (const { file } of targets) opened.push(openDestination(io, file));
    const result = await body(opened);
    for (const destination of opened) await destination.commit();
    return result;
  } catch (error) {
    for (const destination of opened) destination.discard();
    throw error;
  }
}

/** `-o FILE` for a command with one result: its IO (stdout replaced) for the body. */
export function withOutput<T>(io: IO, file: string | undefined, body: (io: IO) => Promise<T>): Promise<T> {
  return withOutputs(io, [{ flag: '-o', file }], ([output]) => body(output!.io));
}

function refuseSharedTargets(io: IO, targets: Array<{ flag: string; file: string | undefined }>): void {
  const seen: Array<{ flag: string; key: string; stats?: Stats }> = [];
  for (const { flag, file } of targets) {
    if (file === undefined || file === '-') continue;
    const path = resolve(io.cwd, file);
    let key = path;
    let stats: Stats | undefined;
    try {
      key = realpathSync(path);
      stats = statSync(path);
    } catch {
      // Not there yet: its resolved name is all there is to compare.
    }
    const same = seen.find((other) => other.key === key || (stats && other.stats && stats.dev === other.stats.dev && stats.ino === other.stats.ino));
    if (same && (stats === undefined || stats.isFile())) throw new UserError(`${same.flag} and ${flag} name the same file (${file}): give them different files`);
    seen.push({ flag, key, ...(stats ? { stats } : {}) });
  }
}

/** Temporary files not yet renamed into place: removed if the process ends first (a broken stdout, Ctrl-C). */
const pendingTemporaries = new Set<string>();
let cleanupInstalled = false;

function removeTemporary(path: string): void {
  pendingTemporaries.delete(path);
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function trackTemporary(path: string): void {
  pendingTemporaries.add(path);
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once('exit', () => {
    for (const path of pendingTemporaries) removeTemporary(path);
  });
}

/** A write that failed, as one line with exit 1. */
export function cannotWrite(shown: string, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOSPC' ? 'no space left on the device' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOENT' ? 'no such folder' : code ?? (error as Error).message;
  return new UserError(`${shown}: cannot write (${reason})`, EXIT.ISSUES);
}

function openDestination(io: IO, file: string | undefined): Destination {
  if (file === undefined || file === '-') {
    const output: Output = { io, write: (text) => writeOut(io, text) };
    return { ...output, commit: async () => {}, discard: () => {} };
  }
  const target = resolve(io.cwd, file);
  let existing: Stats | undefined;
  let finalPath = target;
  try {
    finalPath = realpathSync(target);
    existing = statSync(finalPath);
  } catch {
    // A new file.
  }
  const direct = existing !== undefined && !existing.isFile();
  const path = direct ? finalPath : join(dirname(finalPath), `.${basename(finalPath)}.chatfmt-${process.pid}-${temporarySuffix()}.tmp`);
  let fd: number;
  try {
    fd = openSync(path, direct ? 'w' : 'wx', 0o666);
  } catch (error) {
    throw cannotWrite(file, error);
  }
  if (!direct) {
    trackTemporary(path);
    // The replaced file keeps its permissions.
    if (existing) keepMode(fd, existing.mode);
  }
  // Room for a few batches (batchedLines) in flight, so rendering goes on while the file system writes the last one.
  const stream: WriteStream = createWriteStream('', { fd, highWaterMark: 4 * BATCH_BYTES });
  let failure: unknown;
  stream.on('error', (error) => {
    failure ??= error;
  });
  const check = () => {
    if (failure !== undefined) throw cannotWrite(file, failure);
  };
  const fileIO = withStdout(io, stream);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    stream.end();
    // Loaded here: node:stream is a dozen built-in modules that a run without -o never needs.
    const { finished } = await import('node:stream/promises');
    await finished(stream).catch((error: unknown) => {
      failure ??= error;
    });
  };
  return {
    io: fileIO,
    async write(text) {
      check();
      await writeOut(fileIO, text);
      check();
    },
    async commit() {
      await close();
      if (failure !== undefined) {
        if (!direct) removeTemporary(path);
        check();
      }
      if (direct) return;
      try {
        renameSync(path, finalPath);
        pendingTemporaries.delete(path);
      } catch (error) {
        removeTemporary(path);
        throw cannotWrite(file, error);
      }
    },
    discard() {
      if (!closed) {
        closed = true;
        stream.destroy();
      }
      if (!direct) removeTemporary(path);
    },
  };
}

/**
 * Eight hex digits that keep two runs in one process from choosing the same temporary name. Not a secret: the file is
 * created exclusively ('wx'), so a name that exists already fails instead of being reused. Math.random rather than
 * node:crypto, whose loading cost every `-o` run several milliseconds of start-up.
 */
function temporarySuffix(): string {
  return Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0');
}

function keepMode(fd: number, mode: number): void {
  try {
    fchmodSync(fd, mode & 0o7777);
  } catch {
    // Not ours to change (another owner): the umask's default stands.
  }
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

/** How much output a batch command gathers before one write: a few hundred rows of prompts, not one write per row. */
export const BATCH_BYTES = 1 << 18;

/**
 * Lines of a batch command's output, written in pieces: one write per row cost more than the row's render (a system
 * call each on a pipe; on a file, a hand-off to the file system's thread for every 16 KB). A piece goes out when it
 * reaches BATCH_BYTES, and whenever the command waits for input (the event loop runs, so the input has nothing ready):
 * a pipeline fed a row at a time still gets each result at once. `add` returns a promise only when it wrote a piece
 * (await it: it settles when the destination has room again); `flush` writes the rest, at the end and before an error
 * is reported.
 */
export function batchedLines(io: IO): { add(line: string): Promise<void> | undefined; flush(): Promise<void> } {
  let pending = '';
  let idleFlushArmed = false;
  const flush = (): Promise<void> => {
    if (pending === '') return Promise.resolve();
    const text = pending;
    pending = '';
    return writeOut(io, text);
  };
  const flushWhenIdle = () => {
    idleFlushArmed = false;
    // Not awaited: a full destination slows the next add that fills a piece instead.
    void flush();
  };
  return {
    add(line) {
      pending += line;
      if (pending.length >= BATCH_BYTES) return flush();
      if (!idleFlushArmed) {
        idleFlushArmed = true;
        setImmediate(flushWhenIdle);
      }
      return undefined;
    },
    flush,
  };
}

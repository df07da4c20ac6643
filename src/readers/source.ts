import { createReadStream, readFileSync, statSync } from 'node:fs';
import { ChatfmtError } from '../errors.js';

/** Where rows come from: a file path, '-' (stdin), a byte/string stream, or an async iterable of lines. */
export type DatasetSource = string | NodeJS.ReadableStream | AsyncIterable<string>;

export interface SourceOptions {
  /** The stream '-' reads; the library never reaches for process.stdin itself (the CLI passes its own). */
  stdin?: NodeJS.ReadableStream;
  /** How to name the input in messages (default: the path as given, '<stdin>', '<stream>'). */
  name?: string;
}

/** An opened source: raw bytes (decompressed if gzip) plus how far the underlying input has been read. */
export interface OpenedSource {
  name: string;
  /** Size of the input in bytes when known (files), for progress/ETA. Compressed size for .gz files. */
  totalBytes: number | undefined;
  /** Bytes consumed from the underlying input so far (compressed bytes for gzip). */
  bytesRead(): number;
  /** Decompressed bytes, or strings when the caller passed an iterable of lines. */
  chunks: AsyncIterable<Buffer>;
  /** Set when the caller passed an AsyncIterable<string>: each item is one line, already decoded. */
  lines?: AsyncIterable<string>;
  /** Why `chunks` ended before the input did (gzip data cut short or corrupt), once they have ended; else undefined. */
  cutShort(): string | undefined;
}

function isReadable(source: unknown): source is NodeJS.ReadableStream {
  return typeof source === 'object' && source !== null && typeof (source as NodeJS.ReadableStream).pipe === 'function';
}

export function openDatasetSource(source: DatasetSource, options: SourceOptions = {}): OpenedSource {
  if (typeof source === 'string') {
    if (source === '-') {
      if (!options.stdin) throw new ChatfmtError('INPUT_INVALID', 'source "-" needs options.stdin (the stream to read)');
      return openStream(options.name ?? '<stdin>', options.stdin, undefined);
    }
    const name = options.name ?? source;
    let size: number;
    let small = false;
    try {
      const stat = statSync(source);
      if (stat.isDirectory()) throw new ChatfmtError('INPUT_INVALID', `${name}: is a directory, not a dataset file`);
      size = stat.size;
      small = stat.isFile() && size <= SMALL_FILE_BYTES;
    } catch (error) {
      if (error instanceof ChatfmtError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String((error as Error).message);
      throw new ChatfmtError('INPUT_INVALID', `${name}: ${why}`);
    }
    return openStream(name, small ? wholeFile(source) : createReadStream(source, { highWaterMark: READ_CHUNK_BYTES }), size);
  }
  if (isReadable(source)) return openStream(options.name ?? '<stream>', source, undefined);
  if (typeof (source as AsyncIterable<string>)[Symbol.asyncIterator] === 'function') {
    return { name: options.name ?? '<lines>', totalBytes: undefined, bytesRead: () => 0, chunks: emptyChunks(), lines: source as AsyncIterable<string>, cutShort: () => undefined };
  }
  throw new ChatfmtError('INPUT_INVALID', 'dataset source must be a path, "-", a readable stream or an async iterable of lines');
}

async function* emptyChunks(): AsyncGenerator<Buffer> {}

/** What a file stream reads at a time; a regular file no larger is read in one call instead. */
const READ_CHUNK_BYTES = 1 << 20;
const SMALL_FILE_BYTES = READ_CHUNK_BYTES;

/**
 * A small regular file in one synchronous read: a stream would yield it in one chunk all the same, but opening one
 * starts libuv's thread pool and the promise-based fs machinery, several milliseconds of a one-row command's start.
 */
async function* wholeFile(path: string): AsyncGenerator<Buffer> {
  yield readFileSync(path);
}

function openStream(name: string, stream: NodeJS.ReadableStream | AsyncIterable<Buffer>, totalBytes: number | undefined): OpenedSource {
  let read = 0;
  async function* raw(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of stream as AsyncIterable<Buffer | string>) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        read += bytes.length;
        yield bytes;
      }
    } catch (error) {
      throw ioError(name, error);
    }
  }
  const ending: { why?: string } = {};
  return { name, totalBytes, bytesRead: () => read, chunks: gunzipIfNeeded(name, raw(), ending), cutShort: () => ending.why };
}

function ioError(name: string, error: unknown): ChatfmtError {
  if (error instanceof ChatfmtError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return new ChatfmtError('INPUT_INVALID', `${name}: is a directory, not a dataset file`);
  return new ChatfmtError('INPUT_INVALID', `${name}: cannot read: ${(error as Error).message ?? String(error)}`, { cause: error });
}

/**
 * Gzip is detected by its magic bytes, not the file name: `.gz` files and gzipped stdin both work. Gzip data cut
 * short (a download that stopped) or corrupt further on ends the chunks early and says why in `ending`: the rows
 * before that point are still read and reported.
 */
async function* gunzipIfNeeded(name: string, chunks: AsyncGenerator<Buffer>, ending: { why?: string }): AsyncGenerator<Buffer> {
  const first = await chunks.next();
  if (first.done) return;
  const head = first.value;
  if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
    rejectBinary(name, head);
    yield head;
    yield* chunks;
    return;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    yield* chunks;
  }
  // pipeline (not pipe) so a read error upstream surfaces when iterating the gunzip stream.
  // zlib (and node:stream) are loaded only for gzip input: loading zlib cost a plain JSONL render several milliseconds
  // of start-up.
  const [{ createGunzip }, { Readable, pipeline }] = await Promise.all([import('node:zlib'), import('node:stream')]);
  const gunzip = pipeline(Readable.from(all()), createGunzip(), () => {});
  let checked = false;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      if (!checked) {
        rejectBinary(name, chunk);
        checked = true;
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ChatfmtError) throw error;
    const why = (error as Error).message;
    if (!checked) throw new ChatfmtError('INPUT_INVALID', `${name}: not valid gzip data: ${why}`, { cause: error });
    ending.why = (error as NodeJS.ErrnoException).code === 'Z_BUF_ERROR' ? 'the gzip data ends early (truncated file)' : `the gzip data is corrupt (${why})`;
  }
}

/** JSON text never contains a raw NUL byte; one in the first 8 KB means this is not a text dataset at all. */
function rejectBinary(name: string, head: Buffer): void {
  const nul = head.subarray(0, 8192).indexOf(0);
  if (nul !== -1) throw new ChatfmtError('INPUT_INVALID', `${name}: binary data (NUL byte at offset ${nul}), not JSONL or JSON`);
}

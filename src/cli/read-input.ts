import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UserError, type IO } from './io.js';

export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;

/**
 * Reads a whole input (a file, or stdin for '-' / no file) as UTF-8 text, with a size limit and
 * one-line errors for the usual mistakes: missing file, a folder, binary or non-UTF-8 data.
 */
export async function readInputText(file: string | undefined, io: IO, maxBytes = DEFAULT_MAX_INPUT_BYTES): Promise<string> {
  const bytes = file === undefined || file === '-' ? await readStream(io.stdin, maxBytes) : await readPath(resolve(io.cwd, file), file, maxBytes);
  return decodeUtf8(bytes, file ?? 'stdin');
}

async function readPath(path: string, shown: string, maxBytes: number): Promise<Buffer> {
  let size: number;
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) throw new UserError(`${shown}: is a folder, expected a file`);
    size = stats.size;
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`${shown}: no such file`);
  }
  if (size > maxBytes) throw new UserError(`${shown}: ${size} bytes is over the ${maxBytes}-byte input limit`);
  return readFile(path);
}

async function readStream(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    total += buffer.length;
    if (total > maxBytes) throw new UserError(`stdin: over the ${maxBytes}-byte input limit`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer, shown: string): string {
  try {
    const text = strictUtf8.decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw new UserError(`${shown}: not valid UTF-8 text`);
  }
}

/** Parses `--now`: an ISO date-time; without a zone it is read as UTC wall-clock time. */
export function parseNow(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const hasZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value);
  const date = new Date(hasZone || !value.includes('T') ? value : `${value}Z`);
  if (Number.isNaN(date.getTime())) throw new UserError(`--now: "${value}" is not an ISO date-time (e.g. 2025-01-15T12:00:00)`);
  return date;
}

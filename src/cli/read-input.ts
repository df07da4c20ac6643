import { resolve } from 'node:path';
import { UserError, type IO } from './io.js';
import { openInput, readAllBounded, tooLarge } from './input.js';

export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;

export interface ReadTextOptions {
  maxBytes?: number;
  /**
   * 'strict' (tools, prompts): bytes that are not UTF-8 are an error. 'replace' (completions): they become U+FFFD, as
   * `parse --stream` decodes them, because a completion cut at max_tokens can end inside a character.
   */
  utf8?: 'strict' | 'replace';
}

/** The whole-input limit: CHATFMT_MAX_INPUT_BYTES when set to a positive whole number, else 256 MiB. */
export function maxInputBytes(io: IO): number {
  const value = io.env.CHATFMT_MAX_INPUT_BYTES;
  if (value === undefined || value === '') return DEFAULT_MAX_INPUT_BYTES;
  if (!/^[1-9][0-9]{0,15}$/.test(value)) throw new UserError(`CHATFMT_MAX_INPUT_BYTES must be a positive integer, got "${value}"`);
  return Number(value);
}

/**
 * Reads a whole input (a file, a pipe, a device, or stdin for '-' / no file) as UTF-8 text. The byte count is checked
 * whatever the source, with one-line errors for the usual mistakes: missing file, a folder, a symlink loop, bad UTF-8.
 */
export async function readInputText(file: string | undefined, io: IO, options: ReadTextOptions = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? maxInputBytes(io);
  const shown = file === undefined || file === '-' ? 'stdin' : file;
  let bytes: Buffer;
  if (file === undefined || file === '-') bytes = await readAllBounded(io.stdin as AsyncIterable<Buffer>, shown, maxBytes);
  else {
    const input = await openInput(resolve(io.cwd, file), file);
    if (input.size !== undefined && input.size > maxBytes) {
      input.stream.destroy();
      throw tooLarge(shown, maxBytes);
    }
    bytes = await readAllBounded(input.stream, shown, maxBytes);
  }
  return decodeUtf8(bytes, shown, options.utf8 ?? 'strict');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

function decodeUtf8(bytes: Buffer, shown: string, mode: 'strict' | 'replace'): string {
  let text: string;
  try {
    text = (mode === 'strict' ? strictUtf8 : lenientUtf8).decode(bytes);
  } catch {
    throw new UserError(`${shown}: not valid UTF-8 text`);
  }
  // The decoders drop one leading byte-order mark, as `parse --stream` does.
  return text;
}

/** Parses `--now`: an ISO date-time; without a zone it is read as UTC wall-clock time. */
export function parseNow(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const hasZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value);
  const date = new Date(hasZone || !value.includes('T') ? value : `${value}Z`);
  if (Number.isNaN(date.getTime())) throw new UserError(`--now: "${value}" is not an ISO date-time (e.g. 2025-01-15T12:00:00)`);
  return date;
}

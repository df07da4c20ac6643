import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { ChatfmtError } from '../errors.js';
import { MAX_TEMPLATE_BYTES } from '../render/load.js';

/** The path's file type, following symlinks; a missing path or a symlink loop is a TEMPLATE_SOURCE error naming it. */
export function statTemplatePath(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    throw pathError(path, error);
  }
}

/**
 * Whether an optional file of a model folder is there. Only a missing one is absent: a symlink loop or a denied path
 * is an error naming it (existsSync said false for both, so a looping tokenizer_config.json became "no chat template
 * found").
 */
export function templatePathExists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    throw pathError(path, error);
  }
}

/**
 * A template, config or tokenizer file as text. Only regular files are read: a FIFO or device would block or never
 * end. Bytes are counted as they arrive, so a file whose stat size lies (/proc, a file still growing) stops at the limit.
 */
export function readTemplateText(path: string, what: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before fstat can refuse it.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw pathError(path, error);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is a folder, expected a ${what} file`);
    if (!stats.isFile()) throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: not a regular file (${fileKind(stats)}), expected a ${what} file`);
    return decodeTemplateBytes(readLimited(fd, path, what), path, what);
  } finally {
    closeSync(fd);
  }
}

function readLimited(fd: number, path: string, what: string): Uint8Array {
  const bytes = new Uint8Array(MAX_TEMPLATE_BYTES + 1);
  let length = 0;
  for (;;) {
    const read = readSync(fd, bytes, length, bytes.length - length, null);
    if (read === 0) return bytes.subarray(0, length);
    length += read;
    if (length > MAX_TEMPLATE_BYTES) {
      throw new ChatfmtError('INPUT_TOO_LARGE', `${path}: ${what} is over ${MAX_TEMPLATE_BYTES} bytes, the limit`);
    }
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeTemplateBytes(bytes: Uint8Array, path: string, what: string): string {
  // A template is text: an executable or an image given by mistake gets named as such, not "no known family".
  if (bytes.includes(0)) throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is a binary file, expected a ${what} (text)`);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is not UTF-8 text, expected a ${what}`);
  }
}

/** What a path that is not a regular file is, for the error that refuses it. */
export function fileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

function pathError(path: string, error: unknown): ChatfmtError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new ChatfmtError('TEMPLATE_SOURCE', `${path}: symlink loop (too many levels of symbolic links)`);
  if (code === 'EACCES' || code === 'EPERM') return new ChatfmtError('TEMPLATE_SOURCE', `${path}: permission denied`);
  return new ChatfmtError('TEMPLATE_SOURCE', `${path}: no such file or folder`);
}

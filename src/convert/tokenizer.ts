import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ChatfmtError } from '../errors.js';
import { loadTokenizers } from '../node/dependencies.js';
import { fileKind } from '../node/read-template.js';
import { buildTokenizer, chatTokenizerFrom, type ChatTokenizer } from './tokenizer-offsets.js';
import { TokenizerSandbox, type SandboxOptions } from './tokenizer-sandbox.js';

export type { ChatTokenizer, TokenizedText } from './tokenizer-offsets.js';

/** Tokenizers loaded in this thread, by path and budget: a run (or a validation worker) reads and builds each once. */
const loadedTokenizers = new Map<string, Promise<ChatTokenizer>>();
let tokenizerReads = 0;

/**
 * How many times this thread has read and built a tokenizer from files (a debug counter: tests check that a run
 * loads each tokenizer once, and that a small job starts no workers that would each load it again).
 */
export function tokenizerLoadCount(): number {
  return tokenizerReads;
}

/** Loads `tokenizer.json` + `tokenizer_config.json` from a local folder, or a tokenizer.json path (no network), once per thread. */
export function loadTokenizer(path: string, options: SandboxOptions = {}): Promise<ChatTokenizer> {
  const key = `${resolve(path)}\0${options.budgetMs ?? ''}`;
  let loading = loadedTokenizers.get(key);
  if (!loading) {
    loading = readTokenizer(path, options);
    loadedTokenizers.set(key, loading);
    loading.catch(() => loadedTokenizers.delete(key));
  }
  return loading;
}

async function readTokenizer(path: string, options: SandboxOptions): Promise<ChatTokenizer> {
  tokenizerReads++;
  const dir = path.endsWith('.json') && (await isFile(path)) ? dirname(path) : path;
  const tokenizerJson = await readJson(dir === path ? join(dir, 'tokenizer.json') : path);
  const config = await readJson(join(dir, 'tokenizer_config.json')).catch((error: unknown) => {
    // tokenizer_config.json is optional for tokenization itself; only a missing file is tolerated.
    if ((error as { cause?: { code?: string } }).cause?.code === 'ENOENT') return {};
    throw error;
  });
  return createTokenizer(tokenizerJson, config, dir, options);
}

/**
 * Builds a ChatTokenizer from already-parsed JSON (tests build tiny tokenizers this way). Encoding, normalising and
 * decoding run under a time budget on a worker thread (see TokenizerSandbox); a call over it throws TOKENIZER_TIMEOUT.
 */
export function createTokenizer(tokenizerJson: object, config: object = {}, name = '<inline>', options: SandboxOptions = {}): ChatTokenizer {
  const tokenizer = buildTokenizer(loadTokenizers().Tokenizer, tokenizerJson, config, name);
  return chatTokenizerFrom(tokenizer, new TokenizerSandbox(tokenizerJson, config, name, options), config, name);
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

async function readJson(path: string): Promise<object> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    if (error instanceof ChatfmtError) throw error;
    throw new ChatfmtError('INPUT_INVALID', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text) as object;
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}


/**
 * A tokenizer file's text. Only regular files are read: a FIFO with no writer would block the run forever and a
 * device (a symlink to /dev/zero) would be read until memory runs out, as template files are refused.
 */
async function readRegularFile(path: string): Promise<string> {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before the type check can refuse it.
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ChatfmtError('INPUT_INVALID', `cannot read ${path}: not a regular file (${stats.isDirectory() ? 'a folder' : fileKind(stats)})`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

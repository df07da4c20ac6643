import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { ChatfmtError } from '../errors.js';
import { utf8ToUtf16Index } from './text-offsets.js';
import { TokenizerSandbox, type SandboxOptions } from './tokenizer-sandbox.js';

/** A tokenizer that also says where each token sits in the text it encoded. */
export interface TokenizedText {
  ids: number[];
  /** UTF-16 offsets [start, end) into the encoded text, one pair per token; see `encodeWithOffsets` for the rule. */
  offsets: Array<[number, number]>;
}

export interface ChatTokenizer {
  /** Where it was loaded from (a folder, or "<inline>"). */
  name: string;
  /** Encodes without adding BOS/EOS: chat templates write their special tokens into the text themselves. */
  encode(text: string): TokenizedText;
  decode(ids: number[]): string;
  /** Special tokens from tokenizer_config.json (bos_token, eos_token, ...), flattened to strings. */
  specialTokens: Record<string, string>;
}

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
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, config);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `${name}: cannot build tokenizer: ${(error as Error).message}`, { cause: error });
  }
  const added = new Map<number, { content: string; lstrip: boolean; rstrip: boolean }>();
  for (const [id, token] of tokenizer.get_added_tokens_decoder()) added.set(id, token);
  const sandbox = new TokenizerSandbox(tokenizerJson, config, name, options);
  return {
    name,
    encode: (text) => encodeWithOffsets(tokenizer, sandbox, added, text, name),
    decode: (ids) => sandbox.call<{ text: string }>({ op: 'decode', ids }, ids.length * 4).text,
    specialTokens: specialTokensOf(config),
  };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

async function readJson(path: string): Promise<object> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text) as object;
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function specialTokensOf(config: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (!key.endsWith('_token')) continue;
    if (typeof value === 'string') out[key] = value;
    else if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
      out[key] = (value as { content: string }).content;
    }
  }
  return out;
}

/** GPT-2's byte-level alphabet: the character each byte is written as inside a token string. */
const byteOfChar: Map<number, number> = (() => {
  const map = new Map<number, number>();
  const direct = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    if (direct(b)) map.set(b, b);
    else map.set(256 + shifted++, b);
  }
  return map;
})();

/**
 * Offsets come from the byte-level BPE pieces (@huggingface/tokenizers returns none): each ordinary token string
 * spells its UTF-8 bytes in GPT-2's byte alphabet, and an added token stands for its content's UTF-8 bytes
 * (plus the whitespace it swallows when it has lstrip/rstrip). Every token's bytes are checked against the text,
 * so a tokenizer these rules do not describe fails loudly instead of producing shifted masks.
 *
 * A token that starts or ends inside a multi-byte character gets the whole character: two tokens that split an
 * emoji both cover it. Offsets index the caller's text even when the tokenizer NFC-normalises it.
 */
function encodeWithOffsets(
  tokenizer: Tokenizer,
  sandbox: TokenizerSandbox,
  added: Map<number, { content: string; lstrip: boolean; rstrip: boolean }>,
  text: string,
  name: string,
): TokenizedText {
  const normalized = tokenizer.normalizer ? sandbox.call<{ texts: string[] }>({ op: 'normalize', texts: [text] }, text.length).texts[0]! : text;
  const { ids } = sandbox.call<{ ids: number[] }>({ op: 'encode', text }, text.length);
  const bytes = Buffer.from(normalized, 'utf8');
  const byteOffsets: Array<[number, number]> = [];
  let cursor = 0;
  const fail = (index: number, why: string): never => {
    throw new ChatfmtError('INPUT_INVALID', `${name}: cannot compute token offsets (token ${index}, id ${ids[index]}): ${why}`);
  };
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const start = cursor;
    const special = added.get(id);
    if (special) {
      if (special.lstrip) cursor = skipWhitespace(bytes, cursor);
      const content = Buffer.from(special.content, 'utf8');
      if (!bytes.subarray(cursor, cursor + content.length).equals(content)) fail(i, `added token ${JSON.stringify(special.content)} not found in the text`);
      cursor += content.length;
      if (special.rstrip) cursor = skipWhitespace(bytes, cursor);
    } else {
      const piece = tokenizer.id_to_token(id);
      if (piece === undefined) fail(i, 'unknown id');
      for (const char of piece!) {
        const byte = byteOfChar.get(char.codePointAt(0)!);
        if (byte === undefined) fail(i, `piece ${JSON.stringify(piece)} is not byte-level BPE (only byte-level tokenizers are supported)`);
        if (bytes[cursor] !== byte) fail(i, `piece ${JSON.stringify(piece)} does not match the text at byte ${cursor}`);
        cursor++;
      }
    }
    byteOffsets.push([start, cursor]);
  }
  if (cursor !== bytes.length) fail(ids.length - 1, `tokens cover ${cursor} of ${bytes.length} bytes`);
  const toUtf16 = utf8ToUtf16Index(normalized);
  let offsets = byteOffsets.map(([s, e]): [number, number] => [toUtf16.floor(s), toUtf16.ceil(e)]);
  if (normalized !== text) offsets = remapNormalizedOffsets(text, normalized, offsets, sandbox, name);
  return { ids, offsets };
}

function skipWhitespace(bytes: Buffer, at: number): number {
  while (at < bytes.length && (bytes[at] === 0x20 || (bytes[at]! >= 0x09 && bytes[at]! <= 0x0d))) at++;
  return at;
}

/**
 * Maps offsets in the normalised text back to the original. Unicode normalisation never reaches back across an ASCII
 * character, so both texts split into the same segments just before ASCII characters; a changed segment maps as a whole.
 */
function remapNormalizedOffsets(
  original: string,
  normalized: string,
  offsets: Array<[number, number]>,
  sandbox: TokenizerSandbox,
  name: string,
): Array<[number, number]> {
  // normToOrig[i] = original index of normalised index i, for segment boundaries; inside changed segments, the start.
  const startOf = new Int32Array(normalized.length + 1);
  const endOf = new Int32Array(normalized.length + 1);
  // A segment is one character plus the non-ASCII run after it: marks compose with the ASCII letter before them.
  const segmentEnds: number[] = [];
  for (let o = 0; o < original.length; ) {
    let segmentEnd = o + 1;
    while (segmentEnd < original.length && original.charCodeAt(segmentEnd) >= 0x80) segmentEnd++;
    segmentEnds.push(segmentEnd);
    o = segmentEnd;
  }
  const pieces = segmentEnds.map((end, k) => original.slice(k === 0 ? 0 : segmentEnds[k - 1], end));
  const normalizedPieces = sandbox.call<{ texts: string[] }>({ op: 'normalize', texts: pieces }, original.length).texts;
  let o = 0;
  let n = 0;
  for (let p = 0; p < pieces.length; p++) {
    const segmentEnd = segmentEnds[p]!;
    const piece = pieces[p]!;
    const normalizedPiece = normalizedPieces[p]!;
    if (normalized.startsWith(normalizedPiece, n) === false) {
      throw new ChatfmtError('INPUT_INVALID', `${name}: the tokenizer's normaliser changes the text in a way offsets cannot follow`);
    }
    const same = normalizedPiece === piece;
    for (let k = 0; k <= normalizedPiece.length; k++) {
      startOf[n + k] = same ? o + k : k === normalizedPiece.length ? segmentEnd : o;
      endOf[n + k] = same ? o + k : k === 0 ? o : segmentEnd;
    }
    n += normalizedPiece.length;
    o = segmentEnd;
  }
  if (n !== normalized.length) throw new ChatfmtError('INPUT_INVALID', `${name}: normalised text does not align with the original`);
  return offsets.map(([s, e]) => [startOf[s]!, endOf[e]!]);
}

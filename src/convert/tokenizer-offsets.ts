// The tokenizer's offset logic on Web APIs only (TextEncoder, Uint8Array), so Node's sandboxed tokenizer
// (tokenizer.ts) and an in-page one (the playground) share it. How the tokenizer's own calls run is the caller's:
// Node runs them on a worker thread under a deadline, a page runs them directly. The Tokenizer class comes from the
// caller too: a page bundles it, Node loads it on first use (node/dependencies.ts), so importing chatfmt does not.
import type { Tokenizer } from '@huggingface/tokenizers';
import { ChatfmtError } from '../errors.js';
import { utf8ToUtf16Index } from './text-offsets.js';

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


export type TokenizerRequest = { op: 'encode'; text: string } | { op: 'normalize'; texts: string[] } | { op: 'decode'; ids: number[] };

/** Runs the tokenizer's own work (its regexes); `size` is the request's size, for callers that budget time by it. */
export interface TokenizerCalls {
  call<T>(request: TokenizerRequest, size: number): T;
}

type AddedTokens = Map<number, { content: string; lstrip: boolean; rstrip: boolean }>;

const utf8 = new TextEncoder();

/** Builds the tokenizer from tokenizer.json and tokenizer_config.json, naming the source when it cannot. */
export function buildTokenizer(TokenizerClass: typeof Tokenizer, tokenizerJson: object, config: object, name: string): Tokenizer {
  try {
    return new TokenizerClass(tokenizerJson, config);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `${name}: cannot build tokenizer: ${(error as Error).message}`, { cause: error });
  }
}

/** A ChatTokenizer whose tokenizer calls go through `calls` (a sandbox, or `directCalls`). */
export function chatTokenizerFrom(tokenizer: Tokenizer, calls: TokenizerCalls, config: object, name: string): ChatTokenizer {
  const added: AddedTokens = new Map();
  for (const [id, token] of tokenizer.get_added_tokens_decoder()) added.set(id, token);
  return {
    name,
    encode: (text) => encodeWithOffsets(tokenizer, calls, added, text, name),
    decode: (ids) => calls.call<{ text: string }>({ op: 'decode', ids }, ids.length * 4).text,
    specialTokens: specialTokensOf(config),
  };
}

/** Calls run on this thread, with no deadline: for a page tokenizing its own user's text. */
export function directCalls(tokenizer: Tokenizer): TokenizerCalls {
  const answer = (request: TokenizerRequest): unknown => {
    if (request.op === 'encode') return { ids: tokenizer.encode(request.text, { add_special_tokens: false }).ids };
    if (request.op === 'normalize') return { texts: request.texts.map((text) => (tokenizer.normalizer ? tokenizer.normalizer.normalize(text) : text)) };
    return { text: tokenizer.decode(request.ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }) };
  };
  return { call: <T>(request: TokenizerRequest) => answer(request) as T };
}

function bytesEqualAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

export function specialTokensOf(config: object): Record<string, string> {
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
  calls: TokenizerCalls,
  added: AddedTokens,
  text: string,
  name: string,
): TokenizedText {
  const normalized = tokenizer.normalizer ? calls.call<{ texts: string[] }>({ op: 'normalize', texts: [text] }, text.length).texts[0]! : text;
  const { ids } = calls.call<{ ids: number[] }>({ op: 'encode', text }, text.length);
  const bytes = utf8.encode(normalized);
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
      const content = utf8.encode(special.content);
      if (!bytesEqualAt(bytes, cursor, content)) fail(i, `added token ${JSON.stringify(special.content)} not found in the text`);
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
  if (normalized !== text) offsets = remapNormalizedOffsets(text, normalized, offsets, calls, name);
  return { ids, offsets };
}

function skipWhitespace(bytes: Uint8Array, at: number): number {
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
  calls: TokenizerCalls,
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
  const normalizedPieces = calls.call<{ texts: string[] }>({ op: 'normalize', texts: pieces }, original.length).texts;
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

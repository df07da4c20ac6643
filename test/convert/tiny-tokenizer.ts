// Builds small byte-level BPE tokenizers in the tokenizer.json format, so offset logic is tested on data whose
// every merge the test chose.

/** GPT-2's printable alphabet for the 256 byte values (the standard bytes_to_unicode table). */
export function byteAlphabet(): string[] {
  const chars: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const direct = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    chars.push(String.fromCodePoint(direct ? b : 256 + shifted++));
  }
  return chars;
}

export interface TinyAddedToken {
  content: string;
  special?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
}

/** `merges` are pairs of byte-level strings, e.g. ['h', 'e'] then ['he', 'l']. */
export function tinyTokenizerJson(merges: Array<[string, string]>, added: TinyAddedToken[] = []): object {
  const vocab: Record<string, number> = {};
  for (const char of byteAlphabet()) vocab[char] = Object.keys(vocab).length;
  for (const [a, b] of merges) vocab[a + b] = Object.keys(vocab).length;
  const firstAdded = Object.keys(vocab).length;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added.map((token, i) => ({
      id: firstAdded + i,
      content: token.content,
      single_word: false,
      lstrip: token.lstrip ?? false,
      rstrip: token.rstrip ?? false,
      normalized: false,
      special: token.special ?? true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

/** A ChatML-ish tiny tokenizer: a few merges over "hello", " world", and the ChatML markers as added tokens. */
export function tinyChatTokenizerJson(): object {
  const G = byteAlphabet()[32]!; // the byte-level spelling of a space ("Ġ")
  return tinyTokenizerJson(
    [['h', 'e'], ['he', 'l'], ['hel', 'l'], ['hell', 'o'], [G, 'w'], [`${G}w`, 'o'], [`${G}wo`, 'r']],
    [{ content: '<|im_start|>' }, { content: '<|im_end|>' }, { content: '<think>', special: false }, { content: '<mask>', lstrip: true }],
  );
}

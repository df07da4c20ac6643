/**
 * DeepSeek's markers use U+FF5C `｜` and U+2581 `▁`, kept exactly. Models also write look-alikes with
 * `_` or a space for `▁` (llama.cpp accepts them); both DeepSeek grammars accept those spellings.
 */
export function spellings(marker: string): string[] {
  return [marker, marker.replaceAll('▁', '_'), marker.replaceAll('▁', ' ')];
}

export const deepseek = {
  callsBegin: spellings('<｜tool▁calls▁begin｜>'),
  /** Some R1 distills open with this alone, in place of both the section and the call opener. */
  callsShort: '<｜tool▁calls｜>',
  callsEnd: spellings('<｜tool▁calls▁end｜>'),
  callBegin: spellings('<｜tool▁call▁begin｜>'),
  callEnd: spellings('<｜tool▁call▁end｜>'),
  sep: spellings('<｜tool▁sep｜>'),
  think: { open: ['<think>'], close: ['</think>'] },
};

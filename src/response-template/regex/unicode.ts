/**
 * Character tables of the Python `regex` module (what transformers compiles templates with), checked code point by
 * code point against regex 2026.5.9 on Node 20: `\w` = Alphabetic + marks + decimal digits + connector punctuation +
 * ZWNJ/ZWJ, `\d` = Nd, `\s` = the Unicode White_Space property (unlike `re`, no \x1c-\x1f; unlike JS, no U+FEFF).
 */
const WORD_RE = /^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200c\u200d]$/u;
const DIGIT_RE = /^\p{Nd}$/u;

export function isWordCp(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  return WORD_RE.test(String.fromCodePoint(cp));
}

export function isDigitCp(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x30 && cp <= 0x39;
  return DIGIT_RE.test(String.fromCodePoint(cp));
}

export function isRegexSpaceCp(cp: number): boolean {
  return (cp >= 9 && cp <= 13) || cp === 0x20 || cp === 0x85 || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000;
}

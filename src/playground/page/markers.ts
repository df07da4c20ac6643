// Where the prompt view marks special tokens. Without a tokenizer.json the page cannot know a model's added tokens, so
// besides the template's and family's own strings it recognises the shapes special tokens take across families:
// `<|…|>` (ChatML, Llama 3, gpt-oss, Kimi, GLM), `<｜…｜>` (DeepSeek), `<|…>` / `<…|>` (Gemma 4) and `[UPPER_CASE]`
// (Mistral). A linear scan with a bounded look-ahead: no regex runs on the prompt.

const MAX_MARKER_CHARS = 64;

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r';
}

/** The end of a marker opening at `at`, or -1. */
function markerEnd(text: string, at: number): number {
  const open = text[at];
  if (open === '<') {
    const bar = text[at + 1];
    const limit = Math.min(text.length, at + MAX_MARKER_CHARS);
    for (let i = at + 1; i < limit; i++) {
      const char = text[i]!;
      if (isSpace(char) || (char === '<' && i > at + 1)) return -1;
      // `<|x|>`, `<｜x｜>`, Gemma's `<|x>` (a bar after `<`) and `<x|>` (a bar before `>`).
      if (char === '>') return (bar === '|' || bar === '｜' || text[i - 1] === '|' || text[i - 1] === '｜') && i > at + 2 ? i + 1 : -1;
    }
    return -1;
  }
  if (open === '[') {
    const limit = Math.min(text.length, at + MAX_MARKER_CHARS);
    for (let i = at + 1; i < limit; i++) {
      const char = text[i]!;
      if (char === ']') return i > at + 2 ? i + 1 : -1;
      if (!((char >= 'A' && char <= 'Z') || char === '_')) return -1;
    }
  }
  return -1;
}

/** The distinct marker-shaped strings in `text`. */
export function markerShapedTokens(text: string): string[] {
  const found = new Set<string>();
  for (let at = 0; at < text.length; at++) {
    if (text[at] !== '<' && text[at] !== '[') continue;
    const end = markerEnd(text, at);
    if (end > 0) {
      found.add(text.slice(at, end));
      at = end - 1;
    }
  }
  return [...found];
}

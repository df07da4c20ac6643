// repr() of strings as jinja2 prints them inside lists and dicts ({{ [s] }}, |string of a dict): Python's quote choice
// and escapes, on strings mixing plain ASCII with quotes, backslashes, control characters and non-ASCII.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/index.js';

/** Python repr(s) for strings whose non-ASCII characters are printable (é, 中, 😀). */
function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 32 || c === 127) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

const text = fc.array(fc.constantFrom('a', 'Z', ' ', '~', "'", '"', '\\', '\n', '\t', '\r', '\x01', '\x7f', 'é', '中', '😀'), { maxLength: 12 })
  .map((chars) => chars.join(''));

describe('repr of strings', () => {
  it('quotes and escapes as Python does', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(compileTemplate('{{ [a] }}|{{ {b: a} }}').render({ a, b }).text).toBe(`[${pythonRepr(a)}]|{${pythonRepr(b)}: ${pythonRepr(a)}}`);
      }),
      { numRuns: 600 },
    );
  });

  it('picks double quotes only for a single quote without double quotes', () => {
    expect(compileTemplate(`{{ ["it's", 'say "hi"', 'both \\' and "', ''] }}`).render({}).text).toBe(`["it's", 'say "hi"', 'both \\' and "', '']`);
  });
});

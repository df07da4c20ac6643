import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePythonLiteral, pythonLiteralToJson } from '../../src/parse/args/index.js';

function ok(text: string): unknown {
  const result = parsePythonLiteral(text);
  if (!result.ok) throw new Error(`not a literal: ${text}`);
  return result.value;
}

/** Python's repr() of a JSON value, as a Seed/Qwen3-Coder template's `|string` prints it. */
function pythonRepr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of value) {
      const code = ch.codePointAt(0)!;
      if (ch === '\\' || ch === quote) out += '\\' + ch;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
      else out += ch;
    }
    return out + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as object)
    .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
    .join(', ')}}`;
}

describe('parsePythonLiteral', () => {
  it.each<[string, unknown]>([
    ["{'timeout': 5}", { timeout: 5 }],
    ['{"a": 1, \'b\': [1, 2.5, -3]}', { a: 1, b: [1, 2.5, -3] }],
    ['[True, False, None]', [true, false, null]],
    ['[true, false, null]', [true, false, null]],
    ['(1, 2)', [1, 2]],
    ['(1,)', [1]],
    ['()', []],
    ['(5)', 5],
    ['[1, 2,]', [1, 2]],
    ['{}', {}],
    ["  {'a' : ( 'x' , ) }  ", { a: ['x'] }],
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'a\\nb\\tc\\\\d'", 'a\nb\tc\\d'],
    ["'\\x41\\u00e9\\U0001F600\\101'", 'AéA'.slice(0, 2) + '\u{1F600}A'],
    ["'keep \\d as is'", 'keep \\d as is'],
    ["r'C:\\new'", 'C:\\new'],
    ["u'text'", 'text'],
    ["'日本語 🎉'", '日本語 🎉'],
    ['1.', 1],
    ['.5', 0.5],
    ['1e3', 1000],
    ['-2.5E-1', -0.25],
    ['+7', 7],
    ['0', 0],
    ['{1: "a", None: "b", True: "c"}', { '1': 'a', null: 'b', true: 'c' }],
    ["{'a': 1, 'b': 2, 'a': 3}", { a: 3, b: 2 }],
    ["{'__proto__': 1}", JSON.parse('{"__proto__": 1}')],
  ])('%s', (text, value) => {
    expect(ok(text)).toEqual(value);
  });

  it.each([
    '',
    '{',
    "{'a': 1",
    "{'a' 1}",
    '[1 2]',
    "'unterminated",
    "'line\nbreak'",
    '{1, 2}',
    'abc',
    '__import__("os").system("true")',
    'f(1)',
    '1 + 2',
    '007',
    '1_000',
    '0x1f',
    "b'bytes'",
    "'''triple'''",
    "'\\N{BULLET}'",
    '[1] [2]',
    "{('a', 'b'): 1}",
    'nan',
  ])('rejects %j', (text) => {
    expect(parsePythonLiteral(text)).toEqual({ ok: false });
  });

  it('bounds nesting depth instead of overflowing the stack', () => {
    expect(parsePythonLiteral('['.repeat(100_000) + ']'.repeat(100_000))).toEqual({ ok: false });
    expect(ok('['.repeat(50) + ']'.repeat(50))).toBeDefined();
  });

  it('keeps number spelling when converting to JSON text', () => {
    expect(pythonLiteralToJson("{'id': 12345678901234567890, 'x': 1.0, 'y': 1., 'z': .5}")).toEqual({
      json: '{"id":12345678901234567890,"x":1.0,"y":1.0,"z":0.5}',
      kind: 'object',
    });
  });

  it('reads back what Python repr() prints for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const normalized = JSON.parse(JSON.stringify(value));
        expect(ok(pythonRepr(normalized))).toEqual(normalized);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii' }), (text) => {
        expect(() => parsePythonLiteral(text)).not.toThrow();
      }),
      { seed: 3, numRuns: 500 },
    );
  });
});

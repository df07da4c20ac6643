// Property checks of the JSON reader/writer and of plain-text templates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat, compileTemplate, parsePythonJson, pythonJsonDumps } from '../../src/index.js';

/** Back to plain JSON-compatible data: PyFloat → number, bigint → number, Map → object. */
function plain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

describe('parsePythonJson / pythonJsonDumps', () => {
  it('reads any JSON text to the same data JSON.parse gives (numbers as Python numbers)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(plain(parsePythonJson(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('writes JSON that reads back to the same data, compact or indented, ASCII or not', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), fc.option(fc.integer({ min: 0, max: 4 })), (value, ascii, indent) => {
        const data = parsePythonJson(JSON.stringify(value));
        const text = pythonJsonDumps(data, { ensureAscii: ascii, indent: indent ?? null });
        if (ascii) expect(/[^\x20-\x7e\n]/.test(text)).toBe(false);
        expect(plain(parsePythonJson(text))).toEqual(plain(data));
      }),
      { numRuns: 300 },
    );
  });
});

describe('plain text', () => {
  it('renders text without tags unchanged (one trailing newline dropped, CRLF normalised)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('{')), (text) => {
        const expected = text.replace(/\r\n?/g, '\n').replace(/\n$/, '');
        expect(compileTemplate(text).render({}).text).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('prints any string variable verbatim', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(compileTemplate('[{{ s }}]').render({ s }).text).toBe(`[${s}]`);
      }),
      { numRuns: 200 },
    );
  });
});

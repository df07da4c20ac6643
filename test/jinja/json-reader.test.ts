// parsePythonJson hands plain JSON to JSON.parse and keeps its own reader for everything json.loads reads
// differently; these cases sit on that boundary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat, needsPythonReader, parsePythonJson, pythonJsonDumps } from '../../src/index.js';

const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('parsePythonJson: where JSON.parse and json.loads differ', () => {
  it('keeps integral floats as floats, wherever they sit', () => {
    expect(parsePythonJson('{"a": 1.0}')).toEqual({ a: new PyFloat(1) });
    expect(parsePythonJson('[1e2, 2.5e-1, -0.0, 3]')).toEqual([new PyFloat(100), 0.25, new PyFloat(-0), 3]);
    expect(pythonJsonDumps(parsePythonJson('{"t": [0.5, 2.0, 1E3]}'))).toBe('{"t": [0.5, 2.0, 1000.0]}');
  });

  it('leaves number-like text inside strings alone', () => {
    expect(parsePythonJson('["1.0", "x\\"1.0", "10"]')).toEqual(['1.0', 'x"1.0', '10']);
    expect(parsePythonJson('{"a\\\\": "1e5"}')).toEqual({ 'a\\': '1e5' });
  });

  it('reads integers beyond 2^53 as bigint', () => {
    expect(parsePythonJson('[9007199254740993, 12345678901234567890, -9007199254740993]')).toEqual([
      9007199254740993n, 12345678901234567890n, -9007199254740993n,
    ]);
    expect(parsePythonJson('[123456789012345]')).toEqual([123456789012345]);
  });

  it('keeps the order of integer-like keys, also when written with escapes', () => {
    const plain = parsePythonJson('{"b": 1, "10": 2}');
    expect(plain).toBeInstanceOf(Map);
    expect([...(plain as Map<string, unknown>).keys()]).toEqual(['b', '10']);
    const escaped = parsePythonJson('{"b": 1, "\\u0031\\u0030": 2}');
    expect([...(escaped as Map<string, unknown>).keys()]).toEqual(['b', '10']);
    expect(parsePythonJson('{"b": "10", "c": ["10"]}')).toEqual({ b: '10', c: ['10'] });
  });

  it('reads NaN and Infinity as json.loads does', () => {
    const [nan, inf, minus] = parsePythonJson('[NaN, Infinity, -Infinity]') as number[];
    expect(Number.isNaN(nan)).toBe(true);
    expect([inf, minus]).toEqual([Infinity, -Infinity]);
  });

  it('keeps __proto__ as an ordinary key', () => {
    const value = parsePythonJson('{"__proto__": {"x": 1}, "a": 2}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('reads deep nesting up to the limit and refuses beyond it', () => {
    expect(JSON.stringify(parsePythonJson(nested(950)))).toBe(nested(950));
    expect(() => parsePythonJson(nested(1100))).toThrow(/Nesting too deep/);
  });

  it('reports invalid JSON with a position', () => {
    expect(() => parsePythonJson('{"a": }')).toThrow(/position 6/);
    expect(() => parsePythonJson('{"a": "x\\q"}')).toThrow(/Invalid escape/);
    expect(() => parsePythonJson('[1, 2] x')).toThrow(/Unexpected data after JSON/);
  });

  it('reads any JSON text the same as the Python-faithful reader does', () => {
    // A leading NaN sends the whole text through the Python-faithful reader; the bare text may take JSON.parse.
    const keyed = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', '01', '4294967295')), fc.jsonValue());
    fc.assert(
      fc.property(fc.oneof(fc.json(), keyed.map((d) => JSON.stringify(d)), fc.double().map((x) => `[${x.toFixed(1)}]`)), (text) => {
        const reference = (parsePythonJson(`[NaN, ${text}]`) as unknown[])[1];
        expect(parsePythonJson(text)).toStrictEqual(reference);
      }),
      { numRuns: 300 },
    );
  });

  it('finds what needs the Python reader next to strings, signs and whitespace', () => {
    expect(needsPythonReader(String.raw`{"a": "1.0", "b": [-12345678901234, 123456789012345, 0, -0]}`)).toBe(false);
    expect(needsPythonReader('[-1234567890123456]')).toBe(true);
    expect(needsPythonReader('[12345678901234567]')).toBe(true);
    expect(needsPythonReader(String.raw`{"x": "a\\", "1"` + '\t\n :2}')).toBe(true);
    expect(needsPythonReader(String.raw`{"x": "a\\", "1"` + '\t\n ,2}')).toBe(false);
    expect(needsPythonReader(String.raw`{"\u0031": 2}`)).toBe(true);
    expect(needsPythonReader(String.raw`{"x\"1": "10", "y": ["1", "\n", "2.0"]}`)).toBe(false);
    expect(needsPythonReader('["a", 2e0]')).toBe(true);
    expect(needsPythonReader('["Infinity", -Infinity]')).toBe(true);
    expect(needsPythonReader('"unterminated')).toBe(true);
  });

  it('counts nesting, not brackets inside strings', () => {
    expect(needsPythonReader(`["${'['.repeat(2000)}", {"a": "${'{'.repeat(2000)}"}]`)).toBe(false);
    expect(needsPythonReader(`{"a": ${nested(901)}}`)).toBe(true);
    expect(needsPythonReader(`{"a": ${nested(899)}}`)).toBe(false);
  });

  it('reads long rows and hostile strings the same as the Python-faithful reader does', () => {
    const long = `{"k": "${'x'.repeat(300_000)}", "n": [1, 2.0]}`;
    expect((parsePythonJson(long) as { n: unknown[] }).n).toEqual([1, new PyFloat(2)]);
    const quotes = `{"k": "${'\\"1'.repeat(50_000)}", "v": 3}`;
    expect(parsePythonJson(quotes)).toEqual({ k: '"1'.repeat(50_000), v: 3 });
    expect(() => parsePythonJson(`["${'\\"1'.repeat(50_000)}`)).toThrow(/Unterminated string/);
  });

  it('reads rows of mixed number forms and keys the same as the Python-faithful reader does', () => {
    const number = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.integer({ min: -1000, max: 1000 }).map((n) => `${n}.0`),
      fc.tuple(fc.integer({ min: -99, max: 99 }), fc.integer({ min: -5, max: 5 })).map(([m, e]) => `${m}e${e}`),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    const key = fc.oneof(fc.string(), fc.constantFrom('1', '10', ' 1', '1.0', '\\u0031', 'a"1'));
    const text = fc.array(fc.tuple(key, fc.oneof(number, fc.string().map((s) => JSON.stringify(s)))), { maxLength: 6 }).map(
      (entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k).replace('\\\\u0031', '\\u0031')} : ${v}`).join(', ')}}`,
    );
    fc.assert(
      fc.property(text, (row) => {
        const reference = (parsePythonJson(`[NaN, ${row}]`) as unknown[])[1];
        expect(parsePythonJson(row)).toStrictEqual(reference);
      }),
      { numRuns: 500 },
    );
  });
});

// tojson / pythonJsonDumps write plain values on a fast path and everything else with the exact writer. A Map anywhere
// in a value sends it to the exact writer, so wrapping a value in a one-entry Map (instead of an object) compares the
// two paths through the public API. Python's own bytes for the corner cases are in extra-probes.jsonl.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat, compileTemplate, pythonJsonDumps, type PythonJsonDumpsOptions } from '../../src/index.js';

const codeUnits = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdfff, 0xd83d, 0xde00, 0x2028, 0x22, 0x5c)), { maxLength: 40 })
  .map((units) => String.fromCharCode(...units));
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), codeUnits, fc.constantFrom('', 'a,b', 'c: d', '{"x": 1}', 'é'));
const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.double({ min: -1e-3, max: 1e-3 }),
  fc.constantFrom(1e-4, 9.999e-5, 1e16, 1e21, -1e21, 2 ** 53, 2 ** 53 + 2, 5e-324, -0, 0.1, 1 / 3, 1e300),
  fc.bigInt({ min: -(2n ** 90n), max: 2n ** 90n }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => new PyFloat(Math.trunc(x))),
);
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('dict')),
  list: fc.array(tie('value'), { maxLength: 6 }),
  dict: fc.dictionary(text, fc.option(tie('value'), { nil: undefined, freq: 8 }), { maxKeys: 6 }),
}));
const options = fc.record({
  ensureAscii: fc.boolean(),
  indent: fc.option(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom('\t', '--', '')), { nil: null }),
  separators: fc.option(fc.constantFrom<[string, string]>([',', ':'], [', ', ': '], [' ,', ' : '], [';', '=']), { nil: undefined }),
});

describe('pythonJsonDumps: the fast path writes the exact writer\'s bytes', () => {
  it('on random values: unicode and lone surrogates, floats, big ints, nesting, indent, separators, ensure_ascii', () => {
    fc.assert(
      fc.property(value, options, (v, opts) => {
        const fast = pythonJsonDumps({ v }, opts);
        const exact = pythonJsonDumps(new Map([['v', v]]), opts);
        expect(fast).toBe(exact);
      }),
      { numRuns: 1500 },
    );
  });

  it('writes the same strings again under another ensure_ascii or separator (short strings are remembered)', () => {
    const v = { 'é': ['é', 'a"b', 'type'], type: 'string', long: 'ü'.repeat(40) };
    const settings: PythonJsonDumpsOptions[] = [{}, { ensureAscii: true }, { separators: [',', ':'] }, { ensureAscii: true, separators: [';', '='] }, {}];
    for (const opts of [...settings, ...[...settings].reverse()]) {
      expect(pythonJsonDumps(v, opts)).toBe(pythonJsonDumps(new Map(Object.entries(v)), opts));
    }
    expect(pythonJsonDumps(v, { ensureAscii: true })).toBe(`{"\\u00e9": ["\\u00e9", "a\\"b", "type"], "type": "string", "long": "${'\\u00fc'.repeat(40)}"}`);
  });

  it('sort_keys (always exact) agrees with the fast path on a value whose keys are already sorted', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), leaf, { maxKeys: 8 }), fc.boolean(), (dict, ensureAscii) => {
        const sorted = Object.fromEntries(Object.entries(dict).filter(([key]) => !/^(0|[1-9]\d*)$/.test(key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
        const opts: PythonJsonDumpsOptions = { ensureAscii };
        expect(pythonJsonDumps(sorted, { ...opts, sortKeys: true })).toBe(pythonJsonDumps(sorted, opts));
      }),
      { numRuns: 300 },
    );
  });

  it('hands what it does not write to the exact writer: its errors, deep and repeated values', () => {
    expect(() => pythonJsonDumps({ a: [1, undefined] })).toThrow(/Object of type Undefined is not JSON serializable/);
    expect(() => pythonJsonDumps({ d: new Date(0) })).toThrow(/not JSON serializable/);
    const loop: unknown[] = [];
    loop.push({ again: loop });
    expect(() => pythonJsonDumps(loop)).toThrow(/Circular reference detected/);
    const deep = JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`);
    expect(pythonJsonDumps(deep)).toBe(`${'['.repeat(100)}1${']'.repeat(100)}`);
    // A caller's getter that dumps with other settings in the middle of a dump does not change the outer one's.
    const reentrant = { get v() { return pythonJsonDumps(['é'], { ensureAscii: true, separators: [',', ':'] }); }, w: ['é', 'x'] };
    expect(pythonJsonDumps(reentrant)).toBe('{"v": "[\\"\\\\u00e9\\"]", "w": ["é", "x"]}');
    const shared = { k: 'v' };
    const many = Array.from({ length: 5000 }, () => shared);
    expect(pythonJsonDumps(many)).toBe(`[${Array(5000).fill('{"k": "v"}').join(', ')}]`);
  });
});

describe('tojson in a render: paid for as it grows', () => {
  it('a list repeating one list (10^9 numbers written out) fails the budget instead of being written', () => {
    const source = '{% set l = [[[1] * 1000] * 1000] * 1000 %}{{ l|tojson }}';
    let error: { code?: string; message: string } | undefined;
    try {
      compileTemplate(source, { name: 'amplifier' }).render({});
    } catch (caught) {
      error = caught as { code?: string; message: string };
    }
    expect(error?.code).toBe('TEMPLATE_LIMIT');
    expect(error?.message).toContain('limits.buildBytes');
  });

  it('renders repeated values within the budget', () => {
    const source = "{% set d = {'k': [1, 2]} %}{{ ([d] * 3)|tojson }}|{{ ([d] * 2)|tojson(indent=1) }}";
    expect(compileTemplate(source).render({}).text).toBe(
      '[{"k": [1, 2]}, {"k": [1, 2]}, {"k": [1, 2]}]|[\n {\n  "k": [\n   1,\n   2\n  ]\n },\n {\n  "k": [\n   1,\n   2\n  ]\n }\n]',
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coerceValue, jsonStringFragment, valueKind } from '../../src/parse/args/index.js';
import type { JsonSchema } from '../../src/types.js';

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const num: JsonSchema = { type: 'number' };
const bool: JsonSchema = { type: 'boolean' };
const obj: JsonSchema = { type: 'object', properties: { timeout: { type: 'integer' } } };
const arr: JsonSchema = { type: 'array', items: { type: 'string' } };

/** The coerced value, parsed, plus whether a warning was raised. */
function typed(raw: string, schema: JsonSchema | undefined): { value: unknown; warned: boolean } {
  const result = coerceValue(raw, schema);
  return { value: JSON.parse(result.json), warned: result.diagnostic !== undefined };
}

describe('valueKind', () => {
  it.each<[string, JsonSchema | undefined, string]>([
    ['no schema', undefined, 'unknown'],
    ['empty schema', {}, 'unknown'],
    ['description only', { description: 'x' }, 'unknown'],
    ['string', str, 'string'],
    ['integer', int, 'typed'],
    ['type array with string', { type: ['string', 'null'] }, 'nullable-string'],
    ['type array without string', { type: ['integer', 'null'] }, 'typed'],
    ['anyOf object or null', { anyOf: [{ type: 'object' }, { type: 'null' }] }, 'typed'],
    ['anyOf with a string branch', { anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'string'],
    ['oneOf numbers', { oneOf: [{ type: 'integer' }, { type: 'number' }] }, 'typed'],
    ['allOf narrowing to integer', { allOf: [{ type: ['integer', 'string'] }, { type: 'number' }] }, 'typed'],
    ['allOf with an untyped branch', { allOf: [{ description: 'x' }, { type: 'string' }] }, 'string'],
    ['allOf narrowing a sibling type', { type: ['integer', 'string'], allOf: [{ type: 'integer' }] }, 'typed'],
    ['allOf with disjoint branches admits nothing usable', { allOf: [{ type: 'string' }, { type: 'integer' }] }, 'unknown'],
    ['enum of strings', { enum: ['a', 'b'] }, 'string'],
    ['enum of numbers', { enum: [1, 2, 3] }, 'typed'],
    ['const boolean', { const: true }, 'typed'],
    ['const string', { const: 'x' }, 'string'],
    ['nullable integer', { type: 'integer', nullable: true }, 'typed'],
    ['properties imply object', { properties: { a: {} } }, 'typed'],
    ['items imply array', { items: { type: 'string' } }, 'typed'],
    ['python type names', { type: 'int' }, 'typed'],
    ['python str', { type: 'str' }, 'string'],
  ])('%s', (_name, schema, kind) => {
    expect(valueKind(schema)).toBe(kind);
  });
});

describe('coerceValue: FORMATS §0.5 and LESSONS typing table', () => {
  it('keeps raw text exactly for string parameters, however it looks', () => {
    for (const raw of ['123', '01234', 'true', 'None', '{"a": 1}', '  padded  ', '123_456', 'def f():\n    return 1\n']) {
      expect(coerceValue(raw, str)).toEqual({ json: JSON.stringify(raw) });
    }
  });

  it('a zip code with a leading zero stays a string (FORMATS §5 B)', () => {
    expect(typed('01234', { type: 'string' })).toEqual({ value: '01234', warned: false });
  });

  it('a numeric-looking string id for a string param stays a string', () => {
    expect(coerceValue('123', str).json).toBe('"123"');
  });

  it.each(['123_456', '0x1', '1.', '.5', '+1', '1 2', '1e', '0_7', '00x1', '-', '12abc', 'NaN', 'Infinity', ''])(
    'rejects %j as an integer/number (strict JSON syntax; lesson sglang#30644)',
    (raw) => {
      expect(typed(raw, int)).toEqual({ value: raw, warned: true });
      expect(typed(raw, num)).toEqual({ value: raw, warned: true });
      expect(coerceValue(raw, num).diagnostic?.code).toBe('PARSE_ARG_TYPE');
    },
  );

  it('accepts JSON numbers after trimming surrounding whitespace, keeping their spelling', () => {
    expect(coerceValue(' 12\n', int).json).toBe('12');
    expect(coerceValue('-0', int).json).toBe('-0');
    expect(coerceValue('1.0', num).json).toBe('1.0');
    expect(coerceValue('2.50', num).json).toBe('2.50');
    expect(coerceValue('1e3', int).json).toBe('1e3');
    expect(coerceValue('-3.5E-2', num).json).toBe('-3.5E-2');
    expect(coerceValue('12345678901234567890123', int).json).toBe('12345678901234567890123');
  });

  it('a number with leading zeros reads as Python int()/float() read it (vLLM, SGLang, transformers; issue 16)', () => {
    expect(coerceValue('007', int)).toEqual({ json: '7' });
    expect(coerceValue(' 007\n', int)).toEqual({ json: '7' });
    expect(coerceValue('-007', int)).toEqual({ json: '-7' });
    expect(coerceValue('000', int)).toEqual({ json: '0' });
    expect(coerceValue('01234', num)).toEqual({ json: '1234' });
    expect(coerceValue('-00.5', num)).toEqual({ json: '-0.5' });
    expect(coerceValue('007', { type: ['integer', 'null'] })).toEqual({ json: '7' });
    // Only where the schema asks for a number: a string or untyped value keeps its zeros.
    expect(coerceValue('007', str)).toEqual({ json: '"007"' });
    expect(coerceValue('007', undefined)).toEqual({ json: '"007"' });
  });

  it('an integer parameter accepts integral values only', () => {
    expect(coerceValue('3.0', int).json).toBe('3.0');
    expect(coerceValue('1.5e1', int).json).toBe('1.5e1');
    expect(coerceValue('100e-2', int).json).toBe('100e-2');
    expect(typed('1.5', int)).toEqual({ value: '1.5', warned: true });
    expect(typed('15e-1', int)).toEqual({ value: '15e-1', warned: true });
  });

  it('reads booleans case-insensitively (Python True from history)', () => {
    expect(coerceValue('True', bool).json).toBe('true');
    expect(coerceValue('FALSE', bool).json).toBe('false');
    expect(coerceValue(' true\n', bool).json).toBe('true');
    expect(typed('yes', bool)).toEqual({ value: 'yes', warned: true });
    expect(typed('1', bool)).toEqual({ value: '1', warned: true });
  });

  it('["integer","null"] resolves to the non-null type, and null/None to null', () => {
    const schema = { type: ['integer', 'null'] };
    expect(coerceValue('5', schema).json).toBe('5');
    expect(coerceValue('null', schema).json).toBe('null');
    expect(coerceValue('None', schema).json).toBe('null');
    expect(typed('five', schema)).toEqual({ value: 'five', warned: true });
  });

  it('null is only null when the schema allows it', () => {
    expect(typed('null', int)).toEqual({ value: 'null', warned: true });
    expect(coerceValue('null', { type: 'integer', nullable: true }).json).toBe('null');
  });

  it('an anyOf object parameter comes back as an object, not a JSON string (llama.cpp PR#26833)', () => {
    const schema = { anyOf: [{ type: 'object', properties: { a: { type: 'integer' } } }, { type: 'null' }] };
    expect(typed('{"a": 1}', schema)).toEqual({ value: { a: 1 }, warned: false });
    expect(coerceValue('{"a": 1}', schema).json).toBe('{"a":1}');
  });

  it('reads Python-literal objects and arrays as a fallback (Seed-OSS history)', () => {
    expect(typed("{'timeout': 5}", obj)).toEqual({ value: { timeout: 5 }, warned: false });
    expect(typed("{'a': True, 'b': None, 'c': (1, 'x')}", obj)).toEqual({
      value: { a: true, b: null, c: [1, 'x'] },
      warned: false,
    });
    expect(typed("['a', \"b\"]", arr)).toEqual({ value: ['a', 'b'], warned: false });
    expect(typed("('a',)", arr)).toEqual({ value: ['a'], warned: false });
  });

  it('compacts JSON containers but keeps string contents and number spelling', () => {
    expect(coerceValue('{ "a" : [1.0, 2],\n "b": "x  y" }', obj).json).toBe('{"a":[1.0,2],"b":"x  y"}');
    expect(coerceValue('[12345678901234567890123]', { type: 'array' }).json).toBe('[12345678901234567890123]');
  });

  it('rejects a container of the wrong kind and invalid JSON that is not a literal either', () => {
    expect(typed('[1, 2]', obj)).toEqual({ value: '[1, 2]', warned: true });
    expect(typed('{"a": 1', obj)).toEqual({ value: '{"a": 1', warned: true });
    expect(typed('{"a": f(1)}', obj)).toEqual({ value: '{"a": f(1)}', warned: true });
    expect(typed('__import__("os")', obj)).toEqual({ value: '__import__("os")', warned: true });
  });

  it('infers the type of an enum from its values', () => {
    expect(coerceValue('2', { enum: [1, 2, 3] }).json).toBe('2');
    expect(coerceValue('fast', { enum: ['fast', 'slow'] }).json).toBe('"fast"');
    // A mixed enum: its strings are matched exactly, its numbers by syntax.
    expect(coerceValue('auto', { enum: ['auto', 1, 2] }).json).toBe('"auto"');
    expect(coerceValue('1', { enum: ['auto', 1, 2] }).json).toBe('1');
    expect(coerceValue('maybe', { enum: ['auto', 1] }).diagnostic?.code).toBe('PARSE_ARG_TYPE');
  });

  it('tries every type a union allows', () => {
    const schema = { anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer' } }] };
    expect(coerceValue('False', schema).json).toBe('false');
    expect(coerceValue('[1, 2]', schema).json).toBe('[1,2]');
  });

  it('an unsatisfied value keeps its raw (untrimmed) text', () => {
    expect(coerceValue(' abc \n', int)).toMatchObject({ json: '" abc \\n"', diagnostic: { code: 'PARSE_ARG_TYPE' } });
  });
});

describe('coerceValue without a schema (peer disagreement #13)', () => {
  it.each<[string, unknown]>([
    ['42', 42],
    [' -1.5 ', -1.5],
    ['true', true],
    ['null', null],
    ['[1, 2, 3]', [1, 2, 3]],
    ['{"a": "b"}', { a: 'b' }],
    ['True', 'True'],
    ['None', 'None'],
    ['123_456', '123_456'],
    ['01234', '01234'],
    ['hello world', 'hello world'],
    ['"quoted"', '"quoted"'],
    ["{'a': 1}", "{'a': 1}"],
    ['[1, 2', '[1, 2'],
  ])('%j → %j', (raw, value) => {
    const result = coerceValue(raw, undefined);
    expect(JSON.parse(result.json)).toEqual(value);
    expect(result.diagnostic).toBeUndefined();
  });
});

describe('coerceValue with a type the wire declares (DSML string="true|false", FORMATS-NEXT §2)', () => {
  const nullableStr: JsonSchema = { type: ['string', 'null'] };
  it.each<[string, JsonSchema | undefined, 'string' | 'json', unknown]>([
    // string="true": the raw text, unless the schema excludes strings.
    ['42', undefined, 'string', '42'],
    [' null\n', nullableStr, 'string', ' null\n'],
    ['42', int, 'string', 42],
    ['{"a": 1}', obj, 'string', { a: 1 }],
    // string="false": JSON, checked against the schema; the schema wins where they disagree.
    ['[1, "two"]', undefined, 'json', [1, 'two']],
    ['"quoted"', undefined, 'json', 'quoted'],
    ['hello', undefined, 'json', 'hello'],
    ['null', str, 'json', 'null'],
    ['null', nullableStr, 'json', null],
    ['7', int, 'json', 7],
  ])('%j for %j declared %s → %j', (raw, schema, declared, value) => {
    expect(JSON.parse(coerceValue(raw, schema, declared).json)).toEqual(value);
  });

  it('a declared JSON value that is not what the schema wants is kept as text, with a warning', () => {
    expect(coerceValue('abc', int, 'json')).toMatchObject({ json: '"abc"', diagnostic: { code: 'PARSE_ARG_TYPE' } });
  });
});

/** Any UTF-16 string, lone surrogates and control characters included (cheaper than unit: 'binary'). */
const anyUtf16 = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0xd7f0, max: 0xe010 }), fc.integer({ min: 0, max: 0xffff })), {
    maxLength: 40,
  })
  .map((codes) => String.fromCharCode(...codes));

describe('jsonStringFragment', () => {
  it('equals JSON.stringify without quotes, for any string', () => {
    fc.assert(
      fc.property(anyUtf16, (text) => jsonStringFragment(text) === JSON.stringify(text).slice(1, -1)),
      { seed: 1234, numRuns: 200 },
    );
  });

  it('fragments of a split string concatenate to valid JSON of the whole (split off surrogate pairs)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), (text, at) => {
        const cut = Array.from(text).slice(0, at % (Array.from(text).length + 1)).join('').length;
        const joined = jsonStringFragment(text.slice(0, cut)) + jsonStringFragment(text.slice(cut));
        expect(JSON.parse(`"${joined}"`)).toBe(text);
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  it('escapes control characters, quotes and backslashes', () => {
    expect(jsonStringFragment('a"b\\c\n\u0001</tool_call>')).toBe('a\\"b\\\\c\\n\\u0001</tool_call>');
  });
});

describe('coerceValue properties', () => {
  it('any finite number printed by JSON.stringify is accepted verbatim as a number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = JSON.stringify(value);
        expect(coerceValue(text, num)).toEqual({ json: text });
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('any JSON value of the declared container kind round-trips', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (value) => {
        const text = JSON.stringify(value, null, 1);
        expect(JSON.parse(coerceValue(text, { type: 'object' }).json)).toEqual(JSON.parse(text));
      }),
      { seed: 11, numRuns: 200 },
    );
  });

  it('the result is always valid JSON, whatever the raw text and schema', () => {
    const schemas: (JsonSchema | undefined)[] = [undefined, str, int, num, bool, obj, arr, { type: ['integer', 'null'] }];
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(...schemas), (raw, schema) => {
        expect(() => JSON.parse(coerceValue(raw, schema).json)).not.toThrow();
      }),
      { seed: 5, numRuns: 500 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileResponseTemplate, createResponseParser, parseResponse, ResponseTemplateError } from '../../src/index.js';

function field(content: string, contentArgs?: Record<string, unknown>) {
  return { start_anchor: '<s>', fields: { v: { open: '<v>', close: '</v>', content, ...(contentArgs ? { content_args: contentArgs } : {}) } } };
}
const parse = (body: string, content: string, args?: Record<string, unknown>) =>
  parseResponse(`<v>${body}</v>`, field(content, args), { prefix: '' })['v'];

function valueError(body: string, content: string, args?: Record<string, unknown>): ResponseTemplateError {
  try { parse(body, content, args); } catch (e) { expect(e).toBeInstanceOf(ResponseTemplateError); return e as ResponseTemplateError; }
  throw new Error('expected an error');
}

describe('content parsers with Python semantics (§5)', () => {
  it('text strips Python whitespace: \\x1c-\\x1f, \\x85, U+3000 go, U+FEFF stays', () => {
    expect(parse('\x1c\x85\u3000 hi \x1f', 'text')).toBe('hi');
    expect(parse('\ufeffhi\ufeff', 'text')).toBe('\ufeffhi\ufeff');
    expect(parse('  hi  ', 'text', { strip: false })).toBe('  hi  ');
  });

  it('int reads like Python int()', () => {
    expect(parse(' +7 ', 'int')).toBe(7);
    expect(parse('007', 'int')).toBe(7);
    expect(parse('1_000', 'int')).toBe(1000);
    expect(parse('-٣٤', 'int')).toBe(-34);
    for (const bad of ['7.0', '1__0', '_1', '0x10', '']) {
      const err = valueError(bad, 'int');
      expect([err.pythonType, err.phase, err.code]).toEqual(['ValueError', 'feed', 'RESPONSE_TEMPLATE_VALUE']);
    }
    expect(valueError('x', 'int').message).toContain("invalid literal for int() with base 10: 'x'");
    expect(valueError('1'.repeat(4301), 'int').message).toContain('4300');
  });

  it('float reads like Python float()', () => {
    expect(parse('1e3', 'float')).toBe(1000);
    expect(parse('1_0.5', 'float')).toBe(10.5);
    expect(parse('-Infinity', 'float')).toBe(-Infinity);
    expect(parse('nan', 'float')).toBeNaN();
    expect(parse('.5', 'float')).toBe(0.5);
    expect(valueError('1.2.3', 'float').message).toContain('could not convert string to float');
  });

  it('bool is true only for true/1 (never raises)', () => {
    expect(parse(' TRUE ', 'bool')).toBe(true);
    expect(parse('1', 'bool')).toBe(true);
    expect(parse('yes', 'bool')).toBe(false);
  });

  it('json reads like Python json.loads', () => {
    expect(parse('{"a": NaN, "b": -Infinity}', 'json')).toEqual({ a: NaN, b: -Infinity });
    const dup = parse('{"a": 1, "b": 2, "a": 3}', 'json') as Record<string, unknown>;
    expect(Object.entries(dup)).toEqual([['a', 3], ['b', 2]]);
    expect(parse('{"__proto__": {"x": 1}}', 'json')).toEqual(JSON.parse('{"__proto__": {"x": 1}}'));
    expect(Object.getPrototypeOf(parse('{"__proto__": {"x": 1}}', 'json'))).toBe(Object.prototype);
    expect(valueError('{"a": "x\ny"}', 'json').message).toContain('Invalid control character');
    expect(valueError('{a: 1}', 'json').pythonType).toBe('ValueError');
    expect(parse('not json ', 'json', { allow_non_json: true })).toBe('not json');
    expect(parse(' not json ', 'json', { allow_non_json: true, strip: false })).toBe(' not json ');
  });

  it('a >4300-digit JSON integer is a ValueError that allow_non_json does not catch', () => {
    const err = valueError(`{"n": ${'9'.repeat(4301)}}`, 'json', { allow_non_json: true });
    expect(err.message).toContain('4300');
  });

  it('json strings end at the first quote no backslash escapes, however long the backslash run before it', () => {
    // Decoded natively from the closing quote found by indexOf: an odd run escapes the quote, an even run does not.
    const strings = ['a\\', 'b\\"c', '\\\\"', '"\\', 'x\\\\\\"y', 'tab\there \u00e9 \ud83d\ude00', ''];
    const body = JSON.stringify(Object.fromEntries(strings.map((s, i) => [`k${i}`, s])));
    expect(parse(body, 'json')).toEqual(Object.fromEntries(strings.map((s, i) => [`k${i}`, s])));
    expect(parse('["\\u00e9\\ud800", "\\/"]', 'json')).toEqual(['\u00e9\ud800', '/']);
    expect(valueError('{"a": "\\q"}', 'json').message).toContain('Invalid \\escape');
    expect(valueError('{"a": "open', 'json').message).toContain('Unterminated string');
    expect(valueError('{"a": "x\\"}', 'json').message).toContain('Unterminated string');
  });

  it('json documents JSON.parse accepts read as json.loads reads them: -0 int, -0.0 float, huge numbers, deep nesting', () => {
    // Python: -0 is the int 0 but -0.0 is the float -0.0; 1e400 is inf; nesting stops near depth 990 (RecursionError).
    expect(Object.is((parse('[-0]', 'json') as number[])[0], 0)).toBe(true);
    expect(Object.is((parse('{"a": [-0.0]}', 'json') as { a: number[] }).a[0], -0)).toBe(true);
    expect(parse('{"a": 1e400, "b": -1e400}', 'json')).toEqual({ a: Infinity, b: -Infinity });
    expect(parse(`${'['.repeat(300)}1${']'.repeat(300)}`, 'json')).toEqual(JSON.parse(`${'['.repeat(300)}1${']'.repeat(300)}`));
    const deep = valueError(`${'['.repeat(1000)}${']'.repeat(1000)}`, 'json');
    expect([deep.pythonType, deep.message]).toEqual(['RuntimeError', 'maximum recursion depth exceeded while decoding a JSON document']);
    expect(valueError('\ufeff{}', 'json').message).toContain('BOM');
  });

  it('json unquoted_keys and string_delims (Gemma 4 shape)', () => {
    const args = { unquoted_keys: true, string_delims: [['<|"|>', '<|"|>']] };
    expect(parse('{city:<|"|>Paris, {x:1}<|"|>,n:2}', 'json', args)).toEqual({ city: 'Paris, {x:1}', n: 2 });
    expect(valueError('{a:"\x01"}', 'json', args).message).toContain('\\x01');
  });

  it('xml-inline: finditer with key/value groups, value_parser, merge_duplicates; tag_pattern checked at parse time', () => {
    const args = { tag_pattern: '<(?P<key>\\w+)>(?P<value>.*?)</(?P=key)>', value_parser: { name: 'json', args: { allow_non_json: true } } };
    expect(parse('<a>1</a> junk <b>x</b><a>[2]</a>', 'xml-inline', args)).toEqual({ a: [2], b: 'x' });
    expect(parse('<a>1</a><a>2</a><a>3</a>', 'xml-inline', { ...args, merge_duplicates: true })).toEqual({ a: [1, 2, 3] });
    // transformers' merge: a first value that is already a list takes the duplicates in.
    expect(parse('<a>[1]</a><a>2</a>', 'xml-inline', { ...args, merge_duplicates: true })).toEqual({ a: [1, 2] });
    expect(parse('<k=a>', 'xml-inline', { tag_pattern: '<k=(?P<key>\\w+)(?:=(?P<value>\\w+))?>' })).toEqual({ a: null });
    expect(valueError('<b>1', 'xml-inline', { tag_pattern: '<(?P<key>a)>|<(b)>' }).message).toContain("'key'");
    expect(valueError('<a>1</a>', 'xml-inline').message).toContain('tag_pattern');
    expect(valueError('<a>1</a>', 'xml-inline', { tag_pattern: '<(\\w+)>' }).message).toContain("'key'");
  });

  it('kv-lines: later keys win, lines without the separator are skipped, custom separators', () => {
    expect(parse('a: 1\nnoise\n\nb : x: y\na: 2', 'kv-lines')).toEqual({ a: '2', b: 'x: y' });
    expect(parse('a=1;b=2', 'kv-lines', { line_sep: ';', kv_sep: '=', value_parser: { name: 'int' } })).toEqual({ a: 1, b: 2 });
  });

  it('dotted transform paths and transform_each', () => {
    const t = {
      start_anchor: '<s>',
      fields: { calls: { open: '<c>', close: '</c>', content: 'json', transform_each: true, transform: { name: '{fn.name}', args: '{fn.args}', kind: 'literal {x y}' } } },
    };
    expect(parseResponse('<c>[{"fn": {"name": "f", "args": {"a": 1}}}]</c>', t, { prefix: '' }))
      .toEqual({ calls: [{ name: 'f', args: { a: 1 }, kind: 'literal {x y}' }] });
    expect(() => parseResponse('<c>{"fn": 1}</c>', t, { prefix: '' })).toThrow(/transform_each/);
  });
});

describe('compiled templates', () => {
  it('compile once, parse many times; the compiled form keeps its source', () => {
    const source = { start_anchor: '<s>', fields: { r: { open: '<r>', close: '</r>', repeats: true, content: 'int' } } };
    const compiled = compileResponseTemplate(source);
    expect(compiled.source).toBe(source);
    expect(compileResponseTemplate(compiled)).toBe(compiled);
    expect(parseResponse('<r>1</r><r>2</r>', compiled, { prefix: '' })).toEqual({ r: [1, 2] });
    expect(parseResponse('<r>3</r>', compiled, { prefix: '<s><r>0</r>' })).toEqual({ r: [0, 3] });
  });
});

describe('parser state', () => {
  const t = { start_anchor: '<s>', fields: { content: {} } };
  it('feed/finalize after finalize is a RuntimeError', () => {
    const p = createResponseParser(t, { prefix: '' });
    p.feed('x');
    expect(p.finalize().message).toEqual({ content: 'x' });
    for (const call of [() => p.feed('y'), () => p.finalize()]) {
      try { call(); throw new Error('no error'); } catch (e) {
        expect((e as ResponseTemplateError).pythonType).toBe('RuntimeError');
        expect((e as ResponseTemplateError).code).toBe('RESPONSE_TEMPLATE_STATE');
      }
    }
  });

  it('the prefix is cut after the last anchor; regions it closes land in the dict', () => {
    const tpl = { start_anchor: ['<s>', '<t>'], fields: { r: { open: '<r>', close: '</r>' }, content: {} } };
    expect(parseResponse('tail', tpl, { prefix: 'old<r>no</r><s>x<t><r>yes</r>' })).toEqual({ r: 'yes', content: 'tail' });
  });

  it('field names that are Object.prototype members are ordinary keys', () => {
    const tpl = JSON.parse('{"start_anchor": "<s>", "fields": {"constructor": {"open": "<c>", "close": "</c>", "repeats": true, "join": "+"}, "__proto__": {"open": "<p>", "close": "</p>", "repeats": true}}}');
    const got = parseResponse('<c>a</c><p>x</p><c>b</c>', tpl, { prefix: '' });
    expect(Object.entries(got)).toEqual([['constructor', 'a+b'], ['__proto__', ['x']]]);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
  });

  it('opens at one position: longest wins, then opens before closes, then the field name (not field order)', () => {
    const tpl = { start_anchor: '<s>', fields: { zeta: { open: '<a>', close: '</a>' }, alpha: { open: '<a>', close: '</a>' }, long: { open: '<a>>', close: '</a>' }, content: { close: '<a>' } } };
    expect(parseResponse('<a>x</a>', tpl, { prefix: '' })).toEqual({ alpha: 'x' });
    expect(parseResponse('<a>>x</a>', tpl, { prefix: '' })).toEqual({ long: 'x' });
  });

  it('defaults come first and survive even when empty; 0 and false are kept', () => {
    const tpl = { start_anchor: '<s>', defaults: { role: 'assistant', note: '' }, fields: { n: { open: '<n>', close: '</n>', content: 'int' }, b: { open: '<b>', close: '</b>', content: 'bool' } } };
    const got = parseResponse('<b>no</b><n>0</n>', tpl, { prefix: '' });
    expect(Object.entries(got)).toEqual([['role', 'assistant'], ['note', ''], ['b', false], ['n', 0]]);
  });
});

describe('odd content_args and bodies fail as ResponseTemplateError, never as a JS crash', () => {
  it('holds for every parser', () => {
    const parsers = ['text', 'int', 'float', 'bool', 'json', 'xml-inline', 'kv-lines'];
    const argValue = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.array(fc.oneof(fc.string(), fc.array(fc.string()))),
      fc.record({ name: fc.oneof(fc.constantFrom(...parsers), fc.integer()), args: fc.oneof(fc.constant(null), fc.object()) }));
    const args = fc.dictionary(fc.constantFrom('strip', 'string_delims', 'unquoted_keys', 'allow_non_json', 'tag_pattern', 'value_parser', 'merge_duplicates', 'line_sep', 'kv_sep'), argValue);
    fc.assert(fc.property(fc.constantFrom(...parsers), fc.oneof(args, fc.constant(null), fc.integer()), fc.string(), (content, contentArgs, body) => {
      const t = { start_anchor: '<s>', fields: { v: { open: '<v>', close: '</v>', content, content_args: contentArgs, transform: { x: '{content}' } } } };
      try {
        parseResponse(`<v>${body.replaceAll('</v>', '')}</v>`, t, { prefix: '', tools: [{ name: 'x', parameters: { properties: { a: { type: 'integer' } } } }] });
      } catch (e) {
        if (!(e instanceof ResponseTemplateError)) throw e;
      }
    }), { numRuns: 1500 });
  });
});

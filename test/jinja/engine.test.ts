// Behaviour the probes do not cover: errors as data, sandbox, limits, spans, CRLF, the number model.
import { describe, expect, it } from 'vitest';
import { ChatfmtError, PyFloat, compileTemplate, parsePythonJson, pythonJsonDumps, pythonRepr } from '../../src/index.js';

function render(source: string, variables: Record<string, unknown> = {}): string {
  return compileTemplate(source, { name: 'unit' }).render(variables, { now: new Date('2025-01-15T12:00:00Z') }).text;
}

function caught(fn: () => unknown): ChatfmtError & { pythonType?: string; templateMessage?: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ChatfmtError);
    return error as ChatfmtError;
  }
  throw new Error('expected an error');
}

describe('errors are data', () => {
  it('syntax errors are TEMPLATE_SYNTAX and name the template', () => {
    const error = caught(() => compileTemplate('{% if x %}never closed', { name: 'family/x.jinja' }));
    expect(error.code).toBe('TEMPLATE_SYNTAX');
    expect(error.message.startsWith('family/x.jinja: syntax error: ')).toBe(true);
    expect(error.template).toBe('family/x.jinja');
  });

  it('syntax error messages are jinja2\'s', () => {
    expect(caught(() => compileTemplate('{% if true %}{% endfor %}', { name: 't' })).message).toBe(
      "t: syntax error: Encountered unknown tag 'endfor'. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'. (line 1)",
    );
    expect(caught(() => compileTemplate('a\n{{ a b }}', { name: 't' })).message).toBe(
      "t: syntax error: expected token 'end of print statement', got 'b' (line 2)",
    );
  });

  it('unknown filters and tests fail at compile time, like jinja2, except inside an if or a conditional expression', () => {
    expect(caught(() => compileTemplate('{% for x in y %}{{ x|nofilter }}{% endfor %}')).code).toBe('TEMPLATE_SYNTAX');
    expect(caught(() => compileTemplate('{{ x is notatest }}')).pythonType).toBe('TemplateAssertionError');
    expect(render('{% if false %}{{ x|nofilter }}{% endif %}ok')).toBe('ok');
    const reached = caught(() => render('{{ 1 if x is notatest else 2 }}'));
    expect(reached.code).toBe('TEMPLATE_RUNTIME');
    expect(reached.pythonType).toBe('TemplateRuntimeError');
  });

  it('raise_exception is TEMPLATE_RAISED with the raw message kept', () => {
    const error = caught(() => render("{{ raise_exception('Only user and assistant roles are supported!') }}"));
    expect(error.code).toBe('TEMPLATE_RAISED');
    expect(error.message).toBe('unit: Only user and assistant roles are supported!');
    expect(error.templateMessage).toBe('Only user and assistant roles are supported!');
  });

  it('Python errors are TEMPLATE_RUNTIME with the jinja2 class and message', () => {
    const error = caught(() => render("{{ '<tool_sep>' + args }}", { args: { a: 1 } }));
    expect(error.code).toBe('TEMPLATE_RUNTIME');
    expect(error.message).toBe('unit: TypeError: can only concatenate str (not "dict") to str');
    expect(error.pythonType).toBe('TypeError');
  });
});

describe('sandbox', () => {
  it('never reaches JS prototypes or host objects', () => {
    const vars = { d: { a: 1 }, s: 'x', l: [1] };
    expect(render('[{{ d.constructor }}][{{ d.toString }}][{{ s.constructor }}][{{ l.constructor }}][{{ d.hasOwnProperty }}]', vars)).toBe('[][][][][]');
    expect(render("[{{ d['constructor'] }}][{{ d['__proto__'] }}][{{ s.length }}][{{ l.length }}]", vars)).toBe('[][][][]');
    expect(render('[{{ constructor }}][{{ __proto__ }}][{{ toString }}]', vars)).toBe('[][][]');
  });

  it('dunder attributes are unsafe and raise SecurityError when called', () => {
    expect(render('[{{ d.__class__ }}]', { d: {} })).toBe('[]');
    expect(caught(() => render('{{ d.__class__() }}', { d: {} })).pythonType).toBe('SecurityError');
  });

  it('mutating list/dict methods raise SecurityError', () => {
    for (const source of ['{{ l.append(1) }}', '{{ l.pop() }}', '{{ l.sort() }}', '{{ d.update({}) }}', '{{ d.setdefault("a", 1) }}', '{{ d.clear() }}']) {
      const error = caught(() => render(source, { l: [2, 1], d: {} }));
      expect(error.pythonType, source).toBe('SecurityError');
    }
  });

  it('keys named like JS internals are ordinary dict keys', () => {
    const data = parsePythonJson('{"__proto__": "p", "constructor": "c"}');
    expect(render("{{ d['__proto__'] }}{{ d.constructor }}{{ d|tojson }}", { d: data })).toBe('pc{"__proto__": "p", "constructor": "c"}');
  });

  it('does not mutate the variables it is given', () => {
    const vars = { messages: [{ role: 'user', content: 'hi' }], x: 1 };
    const before = JSON.stringify(vars);
    render('{% set x = 2 %}{% set messages = [] %}{{ x }}', vars);
    expect(JSON.stringify(vars)).toBe(before);
  });

  it('context variables shadow globals, and sets do not leak between renders', () => {
    expect(render('{{ range }}|{{ raise_exception }}', { range: 'r', raise_exception: 'e' })).toBe('r|e');
    const template = compileTemplate('{{ y is defined }}{% set y = 1 %}');
    expect(template.render({}).text).toBe('False');
    expect(template.render({}).text).toBe('False');
  });
});

describe('limits', () => {
  it('range is capped like the jinja2 sandbox', () => {
    const error = caught(() => render('{{ range(100001)|length }}'));
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('Range too big');
    expect(render('{{ range(100000)|length }}')).toBe('100000');
  });

  it('output size is capped', () => {
    expect(caught(() => render("{{ 'x' * 70000000 }}")).code).toBe('TEMPLATE_LIMIT');
    const chunk = 'y'.repeat(100_000);
    expect(caught(() => render('{% for i in range(1000) %}{{ s }}{% endfor %}', { s: chunk })).code).toBe('TEMPLATE_LIMIT');
  });

  it('runaway recursion is a limit error, not a crash', () => {
    expect(caught(() => render('{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}')).code).toBe('TEMPLATE_LIMIT');
    expect(caught(() => render('{% for x in l recursive %}{{ loop(l) }}{% endfor %}', { l: [1] })).code).toBe('TEMPLATE_LIMIT');
  });
});

describe('source handling', () => {
  it('normalises CRLF line endings before lexing', () => {
    expect(render('a\r\n{% if true %}\r\nb\r\n{% endif %}\r\nc\r\n')).toBe('a\nb\nc');
  });

  it('records generation spans in UTF-16 offsets (jinja2 reference: code points [26,32] [55,60] [60,64])', () => {
    const source = [
      '{%- for m in messages %}',
      '<|{{ m.role }}|>',
      "{%- if m.role == 'assistant' %}",
      '  {%- generation %}',
      '{{ m.content }}😀 é',
      '  {%- endgeneration %}',
      '{% else %}',
      '{{ m.content }}',
      '{% endif %}',
      '{%- endfor %}',
      '{% generation %}tail{% endgeneration -%}',
      '',
    ].join('\n');
    const messages = [
      { role: 'user', content: 'hi 😀' },
      { role: 'assistant', content: 'yo\n' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a😀' },
    ];
    const template = compileTemplate(source);
    expect(template.hasGenerationBlocks).toBe(true);
    const result = template.render({ messages });
    expect(result.text).toBe('<|user|>hi 😀\n<|assistant|>yo\n😀 é<|user|>q\n<|assistant|>a😀😀 étail');
    const codePoint = (offset: number) => Array.from(result.text.slice(0, offset)).length;
    expect(result.generationSpans.map(([a, b]) => [codePoint(a), codePoint(b)])).toEqual([[26, 32], [55, 60], [60, 64]]);
    expect(result.text.slice(...result.generationSpans[1]!)).toBe('a😀😀 é');
    expect(compileTemplate('{{ add_generation_prompt }}').hasGenerationBlocks).toBe(false);
  });

  it('caches compiled templates by source and name', () => {
    expect(compileTemplate('{{ 1 }}', { name: 'a' })).toBe(compileTemplate('{{ 1 }}', { name: 'a' }));
    expect(compileTemplate('{{ 1 }}', { name: 'a' })).not.toBe(compileTemplate('{{ 1 }}', { name: 'b' }));
  });

  it('formats strftime_now from the UTC fields of options.now', () => {
    const template = compileTemplate("{{ strftime_now('%d %b %Y %H:%M') }}");
    expect(template.render({}, { now: new Date('2024-02-29T23:05:00Z') }).text).toBe('29 Feb 2024 23:05');
  });

  it('says a render reads the clock only when the text holds a non-blank date strftime_now gave', () => {
    const now = { now: new Date('2025-01-15T12:00:00Z') };
    const readsClock = (source: string, variables: Record<string, unknown> = {}) => compileTemplate(source).render(variables, now).readsClock;
    expect(readsClock("{% set d = strftime_now('%Y-%m-%d') %}Today is {{ d }}.")).toBe(true);
    // Read, then not written (Mistral's default system prompt when the row brings its own).
    expect(readsClock("{% set d = strftime_now('%Y-%m-%d') %}{{ system or 'Today is ' + d }}", { system: 'Be brief.' })).toBe(false);
    expect(readsClock("{% set d = strftime_now('%Y-%m-%d') %}{{ system or 'Today is ' + d }}", {})).toBe(true);
    // A reading that is blank, or that the text holds piecewise only, is not a date written.
    expect(readsClock("[{{ strftime_now('') }}]")).toBe(false);
    expect(readsClock("{% set d = strftime_now('%Y-%m-%d') %}{{ d[:4] }}")).toBe(false);
    expect(readsClock('{{ 1 }}')).toBe(false);
    // The answer does not change with the order the result is read in.
    const result = compileTemplate("{{ strftime_now('%d %b %Y') }}").render({}, now);
    expect([result.readsClock, result.text, result.readsClock]).toEqual([true, '15 Jan 2025', true]);
    // A plain result: spread or serialised, it keeps every field (a getter on a class would drop readsClock).
    expect({ ...result }).toEqual({ text: '15 Jan 2025', generationSpans: [], readsClock: true });
    expect(JSON.parse(JSON.stringify(result))).toEqual({ text: '15 Jan 2025', generationSpans: [], readsClock: true });
  });
});

describe('Python number model', () => {
  it('keeps integral floats, big ints and exponents through parsePythonJson and tojson', () => {
    const text = '{"a": 1.0, "b": 12345678901234567890, "c": [1e-07, 1e+16, 0.1, -0.0], "10": 2, "d": {"2": 1, "x": 2}}';
    const data = parsePythonJson(text);
    expect(render('{{ d|tojson }}', { d: data })).toBe(text);
    expect(pythonJsonDumps(data)).toBe(text);
    expect(render('{{ d.a }}|{{ d.a is float }}|{{ d.b + 1 }}|{{ d.b is integer }}', { d: data })).toBe('1.0|True|12345678901234567891|True');
  });

  it('reads integer-like keys into an order-keeping Map and integral floats into PyFloat', () => {
    const data = parsePythonJson('{"b": 1, "10": 2.0}') as Map<string, unknown>;
    expect(data).toBeInstanceOf(Map);
    expect([...data.keys()]).toEqual(['b', '10']);
    expect(data.get('10')).toEqual(new PyFloat(2));
  });

  it('prints values with Python repr', () => {
    expect(pythonRepr([1, new PyFloat(2), 0.5, null, true, "it's", { k: 'v' }])).toBe(`[1, 2.0, 0.5, None, True, "it's", {'k': 'v'}]`);
    expect(pythonRepr(1e-7)).toBe('1e-07');
    expect(pythonRepr(new PyFloat(1e16))).toBe('1e+16');
    expect(pythonRepr(1e16)).toBe('10000000000000000'); // an integer-valued JS number is a Python int
    expect(render('{{ 10 / 4 }}|{{ 10 / 5 }}|{{ 7 // -2 }}|{{ -7 % 3 }}|{{ 2 ** 64 }}')).toBe('2.5|2.0|-4|2|18446744073709551616');
  });

  it('rejects malformed JSON', () => {
    expect(() => parsePythonJson('{"a": 01}')).toThrow(SyntaxError);
    expect(() => parsePythonJson('[1, 2')).toThrow(SyntaxError);
    expect(() => parsePythonJson('{"a": 1} x')).toThrow(SyntaxError);
  });
});

describe("'%c' % value", () => {
  // Found by fuzzing: any number went to String.fromCodePoint, whose RangeError for 1.5 or -1 came out as a
  // TEMPLATE_LIMIT MemoryError; other values were printed. Each answer here is jinja2's.
  it('gives the character of an int code point or a one-character str', () => {
    expect(render("{{ '%c' % 65 }}|{{ '%c' % True }}|{{ '%c' % 'é' }}|{{ '%c' % '😀' }}|{{ '%c' % ('x'|safe) }}")).toBe('A|\u0001|é|😀|x');
  });

  it.each([
    ["'%c' % 1.5", 'TypeError', '%c requires int or char'],
    ["'%c' % 3.0", 'TypeError', '%c requires int or char'],
    ["'%c' % 'ab'", 'TypeError', '%c requires int or char'],
    ["'%c' % none", 'TypeError', '%c requires int or char'],
    ["'%c' % -1", 'OverflowError', '%c arg not in range(0x110000)'],
    ["'%c' % 1114112", 'OverflowError', '%c arg not in range(0x110000)'],
    ["'%c' % 2**70", 'OverflowError', '%c arg not in range(0x110000)'],
  ])('%s raises %s', (expression, pythonType, message) => {
    const error = caught(() => render(`{{ ${expression} }}`));
    expect([error.code, error.pythonType, error.message]).toEqual(['TEMPLATE_RUNTIME', pythonType, `unit: ${pythonType}: ${message}`]);
  });
});

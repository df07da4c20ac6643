// The render budget (issue 17): hostile templates fail fast with TEMPLATE_LIMIT, paid for before anything big is
// allocated. Sizes here would take gigabytes (or seconds) if they were built; the tests assert codes and messages,
// never timings.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { DEFAULT_LIMITS, compileTemplate, familyIds, renderConversation, loadTemplate, type Message } from '../../src/index.js';
import { render, renderError } from '../helpers/limited-render.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir();


describe('render budget: hostile templates fail fast with TEMPLATE_LIMIT', () => {
  it.each([
    // 147 bytes that ran V8 out of heap at 4.2 GB.
    ["{% set s = 'a'*60000000 %}{% set ns = namespace(t='') %}{% for i in range(100) %}{% set ns.t = ns.t ~ s.upper() %}{% endfor %}{{ ns.t|length }}"],
    ["{{ 'x'.center(500000000) }}"],
    ['{{ ([1]*64000000)|length }}'],
    ["{{ 'x'.ljust(2**40) }}"],
    ["{{ 'ab'|indent(1000000000) }}"],
    ['{{ [1, 2, 3]|tojson(indent=1000000000) }}'],
    ["{{ '%900000000s' % 'x' }}"],
    // A precision is digits written: paid for before the exact expansion is rounded to it.
    ["{{ '%.900000000f' % 1.5 }}"],
    ["{{ '%.900000000g' % 1.5 }}"],
    ["{{ '{:.900000000e}'.format(1.5) }}"],
    ["{{ '%.900000000d' % 1 }}"],
    ["{{ '{:>900000000}'.format('x') }}"],
    ["{{ ('a' * 10000000).replace('a', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb') }}"],
    ["{{ (['ab'] * 1000)|join('x' * 200000) }}"],
    ["{{ ('ab' * 1000).join(['x' * 200000] * 1000) }}"],
    ['{{ [1]|batch(1000000000, 0)|length }}'],
    ['{{ [1]|slice(1000000000)|length }}'],
    // A list repeating one list: a few kilobytes of values whose text is gigabytes (repr, str, pprint, ~, join).
    ['{% set l = [[[1]*1000]*1000]*1000 %}{{ l|string }}'],
    ['{% set l = [[[1]*1000]*1000]*1000 %}{{ l|pprint }}'],
    ['{% set l = [[[1]*1000]*1000]*1000 %}{{ l }}'],
    ["{% set l = [[[1]*1000]*1000]*1000 %}{{ 'x' ~ l }}"],
    ["{% set d = {'k': [[1]*1000]*1000} %}{{ ([d]*1000)|join(',') }}"],
  ])('%s', (source) => {
    const error = renderError(source);
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('limits.buildBytes');
    expect(error.message).not.toContain('\n');
  });

  it('prints repeated and cyclic values as Python does while charging them', () => {
    expect(render("{% set a = [1, 'x'] %}{% set d = {'k': a} %}{{ [a, a, (a, a), d, [d]] }}")).toBe("[[1, 'x'], [1, 'x'], ([1, 'x'], [1, 'x']), {'k': [1, 'x']}, [{'k': [1, 'x']}]]");
    expect(render("{% set t = ([1],) %}{{ [t, t]|string }}")).toBe('[([1],), ([1],)]');
    expect(renderError('{% set l = [[1]*100]*100 %}{{ l|string }}', { buildBytes: 50_000 }).code).toBe('TEMPLATE_LIMIT');
  });

  it('charges a value before building it: a limit of 1,000 bytes refuses 600 characters, allows 400', () => {
    expect(render("{{ ('x' * 400)|length }}", { buildBytes: 1000 })).toBe('400');
    expect(renderError("{{ ('x' * 600)|length }}", { buildBytes: 1000 }).code).toBe('TEMPLATE_LIMIT');
    expect(renderError('{{ ([0] * 200)|length }}', { buildBytes: 1000 }).code).toBe('TEMPLATE_LIMIT');
    // A string no engine could allocate (2^40 characters) is refused by the budget, not by V8.
    expect(renderError("{{ 'x' * 2**40 }}").message).toContain('limits.buildBytes');
  });

  it('sums the budget over the render: many small values add up', () => {
    const source = "{% set ns = namespace(n=0) %}{% for i in range(100) %}{% set s = 'y' * 100 %}{% set ns.n = ns.n + s|length %}{% endfor %}{{ ns.n }}";
    expect(render(source)).toBe('10000');
    expect(renderError(source, { buildBytes: 10_000 }).code).toBe('TEMPLATE_LIMIT');
  });

  it('bounds big-integer results before computing them', () => {
    const squaring = '{% set ns = namespace(x=3) %}{% for i in range(64) %}{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x > 0 }}';
    expect(renderError(squaring).code).toBe('TEMPLATE_LIMIT');
    expect(renderError('{{ (7 ** 100000000) > 1 }}').code).toBe('TEMPLATE_LIMIT');
    expect(render('{{ (2 ** 100000) > 1 }}|{{ 0 ** 10000000000 }}|{{ (-1) ** 10000000001 }}')).toBe('True|0|-1');
  });

  it('reads a million-digit |int the way Python does (past 4,300 digits int() refuses, so the default) without quadratic work', () => {
    expect(render("{{ ('1' * 1000000)|int }}|{{ ('1' * 1000000)|int(7) }}")).toBe('0|7');
    expect(render("{{ ('f' * 100000)|int(base=16) > 0 }}")).toBe('True');
  });

  it('counts generation spans', () => {
    const spans = '{% for i in range(100000) %}{% for j in range(3) %}{% generation %}{% endgeneration %}{% endfor %}{% endfor %}';
    const error = renderError(spans);
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('limits.generationSpans');
    const three = '{% for j in range(3) %}{% generation %}x{% endgeneration %}{% endfor %}';
    expect(compileTemplate(three).render({}, { limits: { generationSpans: 3 } }).generationSpans).toHaveLength(3);
    expect(renderError(three, { generationSpans: 2 }).code).toBe('TEMPLATE_LIMIT');
  });

  it('lets a caller lower the output, loop and call-depth limits', () => {
    expect(renderError("{{ 'x' * 20 }}", { outputChars: 10 }).message).toContain('limits.outputChars');
    expect(renderError('{% for i in range(20) %}{% endfor %}', { loopIterations: 10 }).message).toContain('limits.loopIterations');
    expect(renderError('{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}', { callDepth: 5 }).message).toContain('limits.callDepth');
    expect(renderError('x', { outputChars: -1 }).code).toBe('INPUT_INVALID');
  });

  it('charges a filter block and a call block against limits.outputChars when they write their text', () => {
    // Each piece alone fits the limit of 10 (a capture buffer has its own); written after the 8 characters already
    // out, it does not.
    const limits = { outputChars: 10 };
    expect(render('{% filter upper %}abcdefgh{% endfilter %}', limits)).toBe('ABCDEFGH');
    const filtered = renderError("{{ 'x' * 8 }}{% filter upper %}abcdefgh{% endfilter %}", limits);
    expect(filtered.code).toBe('TEMPLATE_LIMIT');
    expect(filtered.message).toContain('limits.outputChars');
    // A filter can grow its input past the limit (center pads to 40): the block's own write is what catches it.
    expect(renderError("{% filter center(40) %}ab{% endfilter %}", limits).message).toContain('limits.outputChars');
    const macro = '{% macro m() %}{{ caller() }}{% endmacro %}';
    expect(render(macro + '{% call m() %}abcdefgh{% endcall %}', limits)).toBe('abcdefgh');
    const called = renderError(macro + "{{ 'x' * 8 }}{% call m() %}abcdefgh{% endcall %}", limits);
    expect(called.code).toBe('TEMPLATE_LIMIT');
    expect(called.message).toContain('limits.outputChars');
  });

  it('keeps the defaults documented in the README', () => {
    expect(DEFAULT_LIMITS).toEqual({ outputChars: 67108864, buildBytes: 268435456, loopIterations: 10_000_000, scanItems: 100_000_000, callDepth: 200, calls: 10_000_000, generationSpans: 100_000 });
  });

  it('renderConversation takes the same limits', () => {
    const template = loadTemplate({ source: "{% for m in messages %}{{ m.content * 1000 }}{% endfor %}" });
    const conversation = { messages: [{ role: 'user', content: 'hello' }] };
    expect(renderConversation(template, conversation, { args: 'keep' }).text).toHaveLength(5000);
    expect(() => renderConversation(template, conversation, { args: 'keep', limits: { buildBytes: 1000 } })).toThrow(/limits\.buildBytes/);
  });
});

describe('engine size errors are not RecursionError', () => {
  it('calls a V8 string-size failure MemoryError, a real stack overflow RecursionError', () => {
    const huge = renderError("{{ 'x' * 2**30 }}", { buildBytes: Infinity });
    expect(huge.code).toBe('TEMPLATE_LIMIT');
    expect(huge.pythonType).toBe('MemoryError');
    const deep = renderError('{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}', { callDepth: 1e9 });
    expect(deep.code).toBe('TEMPLATE_LIMIT');
    expect(deep.pythonType).toBe('RecursionError');
  });
});

describe('chatfmt render: a template past a budget exits 1', () => {
  it('prints one line and exits 1 (the input drove the template past a limit), not 2', async () => {
    const template = tmp.write('hostile.jinja', "{% for m in messages %}{{ m.content.center(2**40) }}{% endfor %}");
    const input = tmp.write('chat.json', JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));
    const io = memoryIO('');
    const code = await run(['render', '--template', template, '--args', 'keep', input], io);
    expect(io.err()).toMatch(/^chatfmt: .*TEMPLATE_LIMIT|^chatfmt: .*limits\.buildBytes/);
    expect(io.err().trimEnd().split('\n')).toHaveLength(1);
    expect(code).toBe(1);
  });
});

describe('unique stays linear', () => {
  // Found by fuzzing: each item was compared with every one kept before it, so 20,000 integers took 8 s and 20,000
  // dicts 49 s, past every budget (no loop runs). Strings and plain numbers are now looked up by key, as Python's set
  // hashes them; dicts and lists are refused as jinja2 refuses them (its set cannot hash them).
  it('100,000 distinct integers and strings, with 1, 1.0 and True one item as in Python', () => {
    expect(render('{{ (range(100000)|list + range(100000)|map("string")|list)|unique|list|length }}')).toBe('200000');
    expect(render("{{ [1, 1.0, True, 'a', 'a', 'A', None, 2**70, 2.0**70]|unique|list }}")).toBe("[1, 'a', None, 1180591620717411303424]");
    expect(render("{{ ['a', 'A']|unique(case_sensitive=true)|list }}")).toBe("['a', 'A']");
  });

  it.each([["{{ [{'a': 1}, {'a': 1}]|unique|list }}", 'dict'], ['{{ [[1], [1]]|unique|list }}', 'list']])('%s: TypeError, as in jinja2', (source, type) => {
    expect(renderError(source)).toMatchObject({ code: 'TEMPLATE_RUNTIME', pythonType: 'TypeError', message: expect.stringContaining(`unhashable type: '${type}'`) });
  });
});

describe('work that builds nothing is bounded too (found by fuzzing)', () => {
  it('a macro calling itself twice at each of 40 levels stops at limits.calls instead of making 2^40 calls', () => {
    // Within callDepth, no loop, no value built: before, nothing stopped it (2^22 calls took a second).
    const doubling = '{% macro m(n) %}{% if n < 40 %}{{ m(n + 1) }}{{ m(n + 1) }}{% endif %}{% endmacro %}{{ m(0) }}';
    const error = renderError(doubling, { calls: 100_000 });
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('limits.calls');
    expect(renderError(doubling.replace('40', '10'), { calls: 1000 }).message).toContain('limits.calls');
    expect(render(doubling.replace('40', '9'), { calls: 1023 })).toBe('');
    // caller() and a recursive loop's loop() are calls too.
    expect(renderError('{% macro m() %}{{ caller() }}{{ caller() }}{% endmacro %}{% call m() %}x{% endcall %}', { calls: 2 }).message).toContain('limits.calls');
    expect(renderError('{% for x in [[1], [2]] recursive %}{{ loop(x) if x is iterable }}{% endfor %}', { calls: 1 }).message).toContain('limits.calls');
  });

  it("a loop's inline test pays for every item it tests, kept or not", () => {
    // 10^10 tests of a false condition, each of the outer loop's iterations walking the whole list for free (200 s).
    const filtered = '{% set r = range(100000)|list %}{% for i in r %}{% for j in r if false %}{% endfor %}{% endfor %}';
    expect(renderError(filtered).message).toContain('limits.loopIterations');
    // The same with `loop` in the body, where the items are filtered before the first iteration.
    expect(renderError(filtered.replace('{% endfor %}{% endfor %}', '{{ loop.index }}{% endfor %}{% endfor %}')).message).toContain('limits.loopIterations');
    expect(render('{% for j in range(10) if j > 7 %}{{ j }}{% endfor %}', { loopIterations: 10 })).toBe('89');
    expect(renderError('{% for j in range(11) if j > 7 %}{{ j }}{% endfor %}', { loopIterations: 10 }).code).toBe('TEMPLATE_LIMIT');
  });
});

describe('a loop pays for the iterations it runs', () => {
  it('a loop that breaks early costs what it ran, not the length of its list', () => {
    // 1,000 scans of a 1,000-item list that stop at the third item: 3,000 iterations run (plus the outer 1,000); paid
    // up front, the scans cost 1,000,000.
    const scans = '{% set r = range(1000)|list %}{% for i in r %}{% for j in r %}{% if j == 2 %}{% break %}{% endif %}{% endfor %}{% endfor %}';
    expect(render(scans, { loopIterations: 4_000 })).toBe('');
    expect(renderError(scans, { loopIterations: 3_999 }).message).toContain('limits.loopIterations');
  });

  it("every family's template runs a few loop iterations a message, however long the conversation", () => {
    // An agent session of 400 turns (1,601 messages). Each family template looks ahead from a message (to its results,
    // to the next message that is not one) and stops there; the Gemma 4 template scanned to the end of the
    // conversation for every message, 1.3 M iterations here, and 8,000 messages went past the default budget.
    const tools = [{ type: 'function' as const, function: { name: 'f', description: 'F.', parameters: { type: 'object', properties: { a: { type: 'string' } } } } }];
    const messages: Message[] = [{ role: 'system', content: 'You help.' }];
    for (let i = 0; i < 400; i++) {
      messages.push({ role: 'user', content: `question ${i}` });
      messages.push({ role: 'assistant', content: '', tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'f', arguments: { a: 'x' } } }] });
      messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `result ${i}` });
      messages.push({ role: 'assistant', content: `answer ${i}` });
    }
    for (const family of familyIds) {
      const template = loadTemplate({ family });
      expect(() => renderConversation(template, { messages, tools }, { addGenerationPrompt: true, limits: { loopIterations: 5 * messages.length } }), family).not.toThrow();
    }
  });
});

describe('dicts with numeric keys stay linear (found by fuzzing)', () => {
  // 1, 1.0 and True are one key in Python and three in a JS Map, so finding a numeric key scanned every key: a dict of
  // 50,000 integer keys took 8 s to build, and each lookup of a missing key read them all (this one took minutes).
  it('50,000 integer keys built from pairs, then 100,000 lookups of a missing one', () => {
    const source = '{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ d[-1] }}{% endfor %}{{ d|length }}|{{ d[99998] }}|{{ d[99998.0] }}|{{ 3 in d }}|{{ 4.0 in d }}';
    expect(render(source)).toBe('50000|99999|99999|False|True');
  });

  it('keeps the first key of each value and the last value, as Python does', () => {
    expect(render("{{ {1: 'a', 1.0: 'b', True: 'c', 2.0: 'd', 2: 'e', 'x': 1} }}{{ {0: 1, -0.0: 2, false: 3} }}{{ {1: 2}[True] }}{{ {2**70: 1}[2**70] }}")).toBe("{1: 'c', 2.0: 'e', 'x': 1}{0: 3}21");
  });
});

describe('wordwrap stays linear on a word longer than a line', () => {
  // Found by hostile templates: textwrap slices the rest of a word off as a new string at every cut, and the port
  // sliced an array of its characters the same way, so a word of n characters at width w cost n²/w: 32,000 characters
  // at width 1 took 12 s, a megabyte minutes. Each cut now moves an offset.
  it('a 300,000-character word at width 1, and words full of hyphens at width 2', () => {
    expect(render("{{ ('a' * 300000)|wordwrap(1)|length }}|{{ ('ab-' * 100000)|wordwrap(2)|length }}")).toBe('599999|449999');
  });

  it('cuts where textwrap cuts: after the last hyphen that has a non-hyphen before it, else at the width', () => {
    expect(render("{{ 'abc-defgh-ij-klmnopq-rs'|wordwrap(4) }}")).toBe('abc-\ndefg\nh-\nij-k\nlmno\npq-\nrs');
    expect(render("{{ 'x ---abcdefghij--kl'|wordwrap(3, wrapstring='|') }}")).toBe('x -|--a|bcd|efg|hij|--|kl');
  });
});

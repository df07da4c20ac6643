// Block reuse (src/jinja/reuse.ts): a macro call or a top-level loop whose inputs equal an earlier run's gives that
// run's text. Reuse must never change a text: every case here renders with reuse (twice, so the second run can find
// what the first kept) and without, and the texts must be equal; the cases are the ways a block's text could depend
// on something its key might miss.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate, parsePythonJson, shareJson } from '../../src/index.js';
import { loadProbes } from './probe-runner.js';

const root = join(__dirname, '..', '..');
const official = join(root, '..', 'shared', 'templates', 'official');
const NOW = new Date('2025-01-15T12:00:00Z');
type Vars = Record<string, unknown>;

function outcome(source: string, variables: Vars, reuse: boolean, now = NOW): string {
  try {
    const { text, generationSpans } = compileTemplate(source, { name: 'reuse' }).render(variables, { now, reuse });
    return generationSpans.length > 0 ? `${text}\n${JSON.stringify(generationSpans)}` : text;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** Renders with reuse twice and without once; returns the text after checking all three agree. */
function same(source: string, variables: Vars, now = NOW): string {
  const first = outcome(source, variables, true, now);
  const again = outcome(source, variables, true, now);
  const plain = outcome(source, variables, false, now);
  expect(first).toBe(plain);
  expect(again).toBe(plain);
  return plain;
}

describe('block reuse gives the text a full run gives', () => {
  it('a stateful object from outside (a cycler) is not keyed: both calls advance it', () => {
    const source = "{% set c = cycler('a', 'b') %}{% macro m(xs) %}{% for x in xs %}{{ c.next() }}{% endfor %}{% endmacro %}{{ m([1, 2, 3]) }}|{{ m([1, 2, 3]) }}";
    expect(same(source, {})).toBe('aba|bab');
  });

  it('a name the block reads from the render changes its text', () => {
    const source = '{% macro m(xs) %}{% for x in xs %}{{ x }}{{ suffix }}{% endfor %}{% endmacro %}{{ m(tools) }};{% for t in tools %}{{ t }}{{ suffix }}{% endfor %}';
    expect(same(source, { tools: [1, 2, 3], suffix: '!' })).toBe('1!2!3!;1!2!3!');
    expect(same(source, { tools: [1, 2, 3], suffix: '?' })).toBe('1?2?3?;1?2?3?');
  });

  it('an input changed in place between renders is seen', () => {
    const source = '{% macro m(tools) %}{% for t in tools %}{% for k, v in t.items() %}{{ k }}={{ v }} {% endfor %}{% endfor %}{% endmacro %}{{ m(tools) }}';
    const tools = [{ name: 'a', description: 'one' }, { name: 'b', description: 'two' }];
    expect(same(source, { tools })).toBe('name=a description=one name=b description=two ');
    tools[1]!.description = 'changed';
    expect(same(source, { tools })).toBe('name=a description=one name=b description=changed ');
  });

  it('the clock is not keyed: strftime_now inside a block reads each render\'s date', () => {
    const source = "{% macro m(xs) %}{% for x in xs %}{{ strftime_now('%d') }}{% endfor %}{% endmacro %}{{ m([1, 2]) }}";
    expect(same(source, {}, new Date('2025-01-15T12:00:00Z'))).toBe('1515');
    expect(same(source, {}, new Date('2025-01-16T12:00:00Z'))).toBe('1616');
  });

  it('a namespace argument is not keyed: its attributes may change between calls', () => {
    const source = "{% set ns = namespace(v='x') %}{% macro m(n, xs) %}{% for x in xs %}{{ n.v }}{% endfor %}{% endmacro %}{{ m(ns, [1, 2]) }}{% set ns.v = 'y' %}{{ m(ns, [1, 2]) }}";
    expect(same(source, {})).toBe('xxyy');
  });

  it('a call with a caller block runs its caller', () => {
    const source = '{% macro m(xs) %}{% for x in xs %}{{ caller() }}{% endfor %}{% endmacro %}{% call m([1, 2]) %}a{% endcall %}{% call m([1, 2]) %}b{% endcall %}';
    expect(same(source, {})).toBe('aabb');
  });

  it('values a key must tell apart: -0 and 0, 1.0 and 1, a tuple and a list, dict orders, dicts and Maps', () => {
    const source = '{% macro m(v) %}{% for i in range(3) %}{{ v }}{% endfor %}{% endmacro %}{{ m(a) }}|{{ m(b) }}';
    const pairs: Array<[unknown, unknown]> = [
      [-0, 0],
      [parsePythonJson('1.0'), 1],
      [parsePythonJson('{"x": 1, "y": 2}'), parsePythonJson('{"y": 2, "x": 1}')],
      [new Map([['1', 'a']]), { 1: 'a' }],
      ['1', 1],
      [null, undefined],
      // What JSON.stringify would write alike: an undefined item and null, an undefined member and none.
      [[1, undefined], [1, null]],
      [{ a: undefined, b: 1 }, { b: 1 }],
      [[1, -0], [1, 0]],
    ];
    for (const [a, b] of pairs) same(source, { a, b });
    expect(same('{% macro m(v) %}{% for i in range(2) %}{{ v }}{% endfor %}{% endmacro %}{{ m((1, 2)) }}{{ m([1, 2]) }}', {})).toBe('(1, 2)(1, 2)[1, 2][1, 2]');
  });

  it('a macro defined in a loop reads the iteration it was defined in', () => {
    // The loop reads a namespace, so it is not reused whole and each iteration's call is keyed.
    const source = "{% set ns = namespace() %}{% for p in ['a', 'b'] %}{{ ns.x }}{% macro m(xs) %}{% for x in xs %}{{ p }}{{ x }}{% endfor %}{% endmacro %}{{ m([1, 2]) }}{% endfor %}";
    expect(same(source, {})).toBe('a1a2b1b2');
  });

  it('a default that reads a later parameter\'s name reads it from outside', () => {
    const source = '{% macro m(xs, a=b, b=1) %}{% for x in xs %}{{ a }}{{ b }}{% endfor %}{% endmacro %}{{ m([1, 2]) }}';
    expect(same(source, { b: 'outer' })).toBe('outer1outer1');
    expect(same(source, { b: 'other' })).toBe('other1other1');
  });

  it('a macro passed in is keyed by what it reads', () => {
    const source = "{% macro inner(x) %}{{ x }}{{ mark }}{% endmacro %}{% macro outer(f, xs) %}{% for x in xs %}{{ f(x) }}{% endfor %}{% endmacro %}{{ outer(inner, [1, 2]) }}";
    expect(same(source, { mark: '.' })).toBe('1.2.');
    expect(same(source, { mark: ',' })).toBe('1,2,');
  });

  it('a loop with generation blocks keeps its spans', () => {
    const source = '{% for m in messages %}{% generation %}{{ m }}{% endgeneration %}{% endfor %}';
    expect(same(source, { messages: ['a', 'b'] })).toBe('ab\n[[0,1],[1,2]]');
  });

  it('inputs too deep to key still render', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 150; i++) deep = [deep];
    const source = '{% macro m(v) %}{% for i in range(3) %}{{ v|length }}{% endfor %}{% endmacro %}{{ m(v) }}';
    expect(same(source, { v: deep })).toBe('111');
  });

  it('a block that stopped being keyed tries again later', () => {
    // One call a render with new tools each time: it misses until it stops. Then two calls of 600 iterations fit
    // a limit of 1,000 only once the block is keyed again (the second call gives the first's text).
    const template = compileTemplate('{% macro m(tools) %}{% for t in tools %}{{ t }}{% endfor %}{% endmacro %}{{ m(tools)|length }}{% if twice %} {{ m(tools)|length }}{% endif %}', { name: 'reuse-retry' });
    const limits = { loopIterations: 1000 };
    for (let i = 0; i < 8; i++) template.render({ tools: [i, i] });
    const tools = Array.from({ length: 600 }, (_, i) => i % 10);
    expect(() => template.render({ tools, twice: true }, { limits })).toThrow(/loop iterations/);
    let renders = 0;
    for (; renders < 5000; renders++) {
      try {
        expect(template.render({ tools, twice: true }, { limits }).text).toBe('600 600');
        break;
      } catch (error) {
        expect((error as Error).message).toMatch(/loop iterations/);
      }
    }
    expect(renders).toBeLessThan(1000);
  });

  it('inputs past the key limit are not kept and still render', () => {
    const source = '{% macro m(tools) %}{% for t in tools %}{{ t.description|length }},{% endfor %}{% endmacro %}{{ m(tools) }}';
    const tools = [{ description: 'x'.repeat(300_000) }, { description: 'y' }];
    expect(same(source, { tools })).toBe('300000,1,');
    expect(same(source, { tools: [{ description: 'x'.repeat(300_000) }, { description: 'yy' }] })).toBe('300000,2,');
  });

  it('a block whose inputs repeat is run once: a second identical call costs no loop iterations', () => {
    // The loop-iteration limit makes the skipped run visible: two calls of 600 iterations pass a limit of 1,000 only
    // if the second gave the first's text.
    const source = '{% macro m(tools) %}{% for t in tools %}{{ t }}{% endfor %}{% endmacro %}{{ m(tools)|length }} {{ m(tools)|length }}';
    const template = compileTemplate(source, { name: 'reuse-count' });
    const tools = Array.from({ length: 600 }, (_, i) => i % 10);
    const limits = { loopIterations: 1000 };
    expect(template.render({ tools }, { limits }).text).toBe('600 600');
    expect(() => template.render({ tools }, { limits, reuse: false })).toThrow(/loop iterations/);
  });
});

describe('shared values (shareJson): keyed by identity, frozen so the identity stays the content', () => {
  it('a block that only prints a shared value is kept: a second call costs no loop iterations', () => {
    // Written out, 600 long items make a key longer than 600 iterations are worth keeping (KEY_CHARS_PER_WORK), so
    // the second call runs and the two pass 1,000 iterations; shared, the key is a few characters and the call is kept.
    const source = '{% macro m(tools) %}{% for t in tools %}{{ t|tojson }}{% endfor %}{% endmacro %}{{ m(tools)|length }} {{ m(tools)|length }}';
    const template = compileTemplate(source, { name: 'shared-count' });
    const item = 'x'.repeat(100);
    const limits = { loopIterations: 1000 };
    expect(() => template.render({ tools: Array.from({ length: 600 }, () => item) }, { limits })).toThrow(/loop iterations/);
    const tools = Array.from({ length: 600 }, () => item);
    expect(shareJson(tools)).toBe(true);
    expect(template.render({ tools }, { limits }).text).toBe('61200 61200');
  });

  it('a shared value cannot change under its key: it is deep-frozen', () => {
    const tools = [{ type: 'function', function: { name: 'a', parameters: { properties: { q: { type: 'string' } } } } }];
    expect(shareJson(tools)).toBe(true);
    expect(Object.isFrozen(tools) && Object.isFrozen(tools[0]) && Object.isFrozen(tools[0]!.function.parameters.properties.q)).toBe(true);
    expect(() => {
      (tools[0]!.function as { name: string }).name = 'b';
    }).toThrow(TypeError);
  });

  it('shared, equal unshared and different values each get their own text', () => {
    const source = '{% for t in tools %}{{ t.name }}={{ t.value|tojson }};{% endfor %}';
    const shared = [{ name: 'a', value: 1 }, { name: 'b', value: [1, 'x'] }];
    const other = [{ name: 'a', value: 1.5 }];
    shareJson(shared);
    shareJson(other);
    const template = compileTemplate(source, { name: 'shared-mixed' });
    const render = (tools: unknown) => template.render({ tools }).text;
    for (let round = 0; round < 3; round++) {
      expect(render(shared)).toBe('a=1;b=[1, "x"];');
      expect(render(other)).toBe('a=1.5;');
      expect(render([{ name: 'a', value: 1 }, { name: 'b', value: [1, 'x'] }])).toBe('a=1;b=[1, "x"];');
      expect(render([{ name: 'a', value: 2 }, { name: 'b', value: [1, 'x'] }])).toBe('a=2;b=[1, "x"];');
      expect(render([{ name: 'a', value: parsePythonJson('1.0') }])).toBe('a=1.0;');
    }
  });

  it('only plain JSON data is taken, and what is refused is left as it was', () => {
    for (const value of [new Map([['a', 1]]), [-0], [parsePythonJson('1.0')], [undefined], [1n], Object.create(null) as object, [[1], new Date(0)]]) {
      expect(shareJson(value)).toBe(false);
      expect(Object.isFrozen(value)).toBe(false);
    }
    expect(shareJson({ a: [1, 'two', null, true, { b: 2.5 }] })).toBe(true);
  });
});

describe('block reuse over random values', () => {
  // Leaves that print alike or nearly (0 and -0, 1 and 1.0, '1' and 1) and containers whose kind or order differ:
  // a macro called with one value and then another must print each as it is.
  const leaf = fc.constantFrom<unknown>(0, -0, 1, parsePythonJson('1.0'), parsePythonJson('-0.0'), parsePythonJson('12345678901234567890'), '1', 'a', true, null);
  const key = fc.constantFrom('a', 'b', '1', '10');
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, { arbitrary: leaf, weight: 3 }, tie('dict'), tie('list'), tie('map')),
    dict: fc.dictionary(key, tie('value'), { maxKeys: 3 }),
    list: fc.array(tie('value'), { maxLength: 3 }),
    map: fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((pairs) => new Map(pairs)),
  }));
  // The loop reads a namespace, so it is not reused whole and each call of m is keyed.
  const source = '{% macro m(v) %}{% for i in range(2) %}{{ v }}{% endfor %}{% endmacro %}{% set ns = namespace() %}{% for v in values %}{{ ns.x }}{{ m(v) }}|{% endfor %}';

  it('prints every value as a run without reuse does, each called after the others', () => {
    let run = 0;
    // Up to four values, each twice: the second calls find what the first kept (four texts are kept per block). A
    // template of its own per run (compileTemplate caches by source): a block that kept missing stops being keyed.
    fc.assert(fc.property(fc.array(value, { minLength: 2, maxLength: 4 }), (values) => {
      same(`${source}{# ${run++} #}`, { values: [...values, ...values] });
    }), { numRuns: 300 });
  });
});

describe('block reuse over every recorded probe', () => {
  const probes = ['interpreter-probes.jsonl', 'extra-probes.jsonl', 'shape-probes.jsonl'].flatMap((file) => loadProbes(join(__dirname, file)));
  it('has the probes', () => expect(probes.length).toBeGreaterThan(300));
  it('renders each as it renders without reuse', () => {
    for (const probe of probes) same(probe.template, probe.context);
  });
});

const conversations = readdirSync(join(root, 'fixtures', 'conversations'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => parsePythonJson(readFileSync(join(root, 'fixtures', 'conversations', file), 'utf8')) as Vars);

function templates(): Array<[string, string]> {
  const own = readdirSync(join(root, 'templates')).filter((file) => file.endsWith('.jinja')).map((file): [string, string] => [file, join(root, 'templates', file)]);
  if (!existsSync(official)) return own;
  const theirs = readdirSync(official).flatMap((dir) => readdirSync(join(official, dir)).filter((file) => file.endsWith('.jinja')).map((file): [string, string] => [`${dir}/${file}`, join(official, dir, file)]));
  return [...own, ...theirs];
}

describe.each(templates())('block reuse with the template %s', (_name, file) => {
  const source = readFileSync(file, 'utf8');
  it('renders every bundled conversation as without reuse, twice over and after its tools change in place', () => {
    for (const conversation of conversations) {
      const variables = { ...conversation, add_generation_prompt: true, bos_token: '<s>', eos_token: '</s>' };
      same(source, variables);
      const tools = conversation.tools as Vars[] | undefined;
      const fn = tools?.[0]?.function as Vars | undefined;
      if (fn === undefined) continue;
      const before = fn.description;
      fn.description = `${String(before)} (changed)`;
      try {
        same(source, variables);
      } finally {
        fn.description = before;
      }
    }
  });
});

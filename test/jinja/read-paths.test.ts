// Shapes compiled into one closure (src/jinja/compile-paths.ts, the direct filter call, loops without a scope of their
// own) against the general closures of the same expression. `[x][0].a` starts from a subscript, not a name, so it is
// no read path: its attribute and key reads run one closure each, as before the fusion.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/index.js';

/** Keys that take every branch of a read: plain keys, dict method names, refused dunders, Object.prototype's own names. */
const key = fc.constantFrom('a', 'b', 'role', 'content', 'get', 'items', 'keys', '__class__', '__len__', 'toString', 'constructor', 'hasOwnProperty', '_x', '1');
const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('dict'), tie('dict'), tie('list'), tie('map')),
  dict: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  list: fc.array(tie('value'), { maxLength: 3 }),
  map: fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((pairs) => new Map(pairs)),
}));
const path = fc.array(fc.tuple(fc.boolean(), key), { minLength: 1, maxLength: 4 })
  .map((steps) => steps.map(([item, k]) => (item ? `['${k}']` : `.${k}`)).join(''));

/** What a render gives: its text, or the error's message (a failing read must fail the same way). */
function outcome(source: string, variables: Record<string, unknown>): string {
  try {
    return `ok:${compileTemplate(source).render(variables).text}`;
  } catch (error) {
    return `error:${(error as Error).message}`;
  }
}

describe('read paths: a name with attribute and constant-key reads in one closure', () => {
  it('reads what the read-by-read closures read, from the root and through the scope chain', () => {
    fc.assert(
      fc.property(value, path, (v, p) => {
        const general = outcome(`{{ [x][0]${p} }}`, { x: v });
        expect(outcome(`{{ x${p} }}`, { x: v })).toBe(general);
        expect(outcome(`{% for y in [x] %}{{ y${p} }}{% endfor %}`, { x: v })).toBe(general);
      }),
      { numRuns: 3000 },
    );
  });

  it('answers `is defined` as the read-by-read closures do, in an expression and in an if', () => {
    fc.assert(
      fc.property(value, path, (v, p) => {
        const general = outcome(`{{ [x][0]${p} is defined }}`, { x: v });
        expect(outcome(`{{ x${p} is defined }}`, { x: v })).toBe(general);
        expect(outcome(`{% for y in [x] %}{{ y${p} is undefined }}{% endfor %}`, { x: v })).toBe(general === 'ok:True' ? 'ok:False' : general === 'ok:False' ? 'ok:True' : general);
        expect(outcome(`{% if x${p} is defined %}True{% else %}False{% endif %}`, { x: v })).toBe(general);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an unset name as the Undefined the name gives', () => {
    expect(outcome('{{ nothing.a }}', {})).toBe(outcome('{{ [nothing][0].a }}', {}));
    expect(outcome('{{ nothing.a is defined }}', {})).toBe(outcome('{{ [nothing][0].a is defined }}', {}));
    expect(outcome('{% for y in [1] %}{{ nothing.a.b }}{% endfor %}', {})).toBe(outcome('{{ [nothing][0].a.b }}', {}));
    expect(outcome('{{ loop.index }}', {})).toBe(outcome('{{ [loop][0].index }}', {}));
  });
});

describe('filters without arguments are called directly', () => {
  const filters = ['trim', 'upper', 'length', 'string', 'tojson', 'list', 'first', 'capitalize', 'items', 'safe', 'int', 'float'];
  it('give what a filter block (a chain of filter steps) gives the same text', () => {
    fc.assert(
      fc.property(fc.constantFrom(...filters), fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(' a b ', '12', '1.5', '')), (name, text) => {
        expect(outcome(`{{ x|${name} }}`, { x: text })).toBe(outcome(`{% filter ${name} %}{{ x }}{% endfilter %}`, { x: text }));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('a loop without loop, an inline test or an else keeps no scope of its own', () => {
  it('still keeps its sets and its target to itself and reads outer scopes', () => {
    const source = [
      '{% set top = 1 %}{% for a in [1, 2] %}{% set top = top + a %}{% for b in [3] %}{% set a = a + b %}{{ a }},{% endfor %}{{ a }};{% endfor %}',
      '{{ top }}|{{ a is defined }}|{% for m in [1] %}{% macro f() %}{{ m }}{% endmacro %}{{ f() }}{% endfor %}',
    ].join('');
    // jinja2 3.1: sets inside a loop stay inside its iteration; a loop target is not visible after the loop.
    expect(compileTemplate(source).render({}).text).toBe('4,1;5,2;1|False|1');
  });

  it('iterates a dict\'s keys and items, skipping keys whose value is undefined (absent to Python)', () => {
    const d = { a: 1, b: undefined, c: 3 };
    const text = compileTemplate('{% for k in d %}{{ k }}{% endfor %}|{% for k, v in d|items %}{{ k }}={{ v }} {% endfor %}|{{ d|list }}').render({ d }).text;
    expect(text).toBe("ac|a=1 c=3 |['a', 'c']");
  });
});

// sort and dictsort order strings as Python does: by code point (UTF-16 order differs once surrogates are involved),
// case-insensitively by default, and stably (equal keys keep their order, reversed or not).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/index.js';

const render = (source: string, vars: Record<string, unknown>): string => compileTemplate(source).render(vars).text;

/** Python's sorted(items, key=..., reverse=...): stable, comparing key code points. */
function pythonSorted<T>(items: T[], key: (item: T) => string, reverse: boolean): T[] {
  const points = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0)!);
  const compare = (a: number[], b: number[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  };
  const keyed = items.map((item, index) => ({ item, key: points(key(item)), index }));
  keyed.sort((a, b) => (reverse ? -compare(a.key, b.key) : compare(a.key, b.key)) || a.index - b.index);
  return keyed.map((k) => k.item);
}

const word = fc.array(fc.constantFrom('a', 'B', 'b', 'é', 'Z', '\uffff', '\ud83d\ude00', '\u{10000}', ' '), { maxLength: 4 }).map((parts) => parts.join(''));

describe('sort and dictsort order strings by code point, stably', () => {
  it('sort: plain strings, astral characters, case collisions, reverse and case_sensitive', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.boolean(), fc.boolean(), (items, reverse, caseSensitive) => {
        const text = render('{{ items|sort(reverse=r, case_sensitive=c)|tojson }}', { items, r: reverse, c: caseSensitive });
        expect(JSON.parse(text)).toEqual(pythonSorted(items, (s) => (caseSensitive ? s : s.toLowerCase()), reverse));
      }),
      { numRuns: 400 },
    );
  });

  it('dictsort: by key and by value', () => {
    fc.assert(
      fc.property(fc.dictionary(word, word, { maxKeys: 6 }), fc.boolean(), fc.constantFrom('key', 'value'), (dict, reverse, by) => {
        const entries = Object.entries(dict);
        const text = render('{% for k, v in d|dictsort(by=by, reverse=r) %}{{ [k, v]|tojson }};{% endfor %}', { d: dict, r: reverse, by });
        const expected = pythonSorted(entries, ([k, v]) => (by === 'key' ? k : v).toLowerCase(), reverse);
        expect(text).toBe(expected.map((e) => `${JSON.stringify(e).replace(',', ', ')};`).join(''));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps equal keys in their order, and still orders numbers and mixed keys as Python does', () => {
    expect(render("{{ ['b', 'B', 'a', 'A']|sort|join(',') }}|{{ ['b', 'B', 'a', 'A']|sort(reverse=true)|join(',') }}", {})).toBe('a,A,b,B|b,B,a,A');
    expect(render('{{ [3, 1.5, 2]|sort|join(",") }}', {})).toBe('1.5,2,3');
    expect(() => render("{{ [1, 'a']|sort }}", {})).toThrow(/'<' not supported between instances of 'str' and 'int'/);
  });
});

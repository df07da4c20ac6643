// limits.scanItems: reading a value without building one (`x in list`, `list|sum`, `s.count(...)`) is paid for, so a
// loop repeating such a read fails with TEMPLATE_LIMIT instead of hanging the process for minutes. The hostile
// sizes here ran 5–300 s before the budget; the tests assert codes and messages, never timings.
import { describe, expect, it } from 'vitest';
import { compileTemplate, familyIds, loadTemplate, renderConversation } from '../../src/index.js';
import { render, renderError } from '../helpers/limited-render.js';

const bigList = '{% set r = range(100000)|list %}';
const bigString = "{% set s = 'a' * 1000000 %}";

describe('scan budget: a loop of reads that build nothing fails with TEMPLATE_LIMIT', () => {
  it.each([
    [bigList + '{% for i in r %}{{ r|sum }}{% endfor %}'],
    [bigList + '{% for i in r %}{{ -1 in r }}{% endfor %}'],
    [bigList + "{% for i in r %}{{ '-1' in r }}{% endfor %}"],
    [bigList + '{% for i in r %}{{ r|max }}{{ r|min }}{% endfor %}'],
    [bigList + '{% for i in r %}{{ r.count(-1) }}{% endfor %}'],
    [bigList + '{% for i in r %}{{ r|select("lt", 0)|list }}{% endfor %}'],
    [bigList + '{% set q = range(100000)|list %}{% for i in r %}{{ r == q }}{{ r < q }}{% endfor %}'],
    [bigString + "{% for i in range(100000) %}{% for j in range(100) %}{{ 'b' in s }}{% endfor %}{% endfor %}"],
    [bigString + "{% for i in range(100000) %}{% for j in range(100) %}{{ s.count('b') }}{% endfor %}{% endfor %}"],
    [bigString + '{% for i in range(100000) %}{% for j in range(100) %}{{ s|length }}{% endfor %}{% endfor %}'],
    [bigString + "{% set t = 'a' * 1000000 %}{% for i in range(100000) %}{% for j in range(100) %}{{ s == t }}{% endfor %}{% endfor %}"],
  ])('%s', (source) => {
    const error = renderError(source);
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('limits.scanItems');
    expect(error.message).not.toContain('\n');
  });

  it('counts a list item read as one item and 32 characters of a string as one', () => {
    const inList = '{{ -1 in range(1000)|list }}';
    expect(render(inList, { scanItems: 1000 })).toBe('False');
    expect(renderError(inList, { scanItems: 999 }).message).toContain('limits.scanItems');
    const inString = "{{ 'b' in 'a' * 3200 }}";
    expect(render(inString, { scanItems: 100 })).toBe('False');
    expect(renderError(inString, { scanItems: 99 }).message).toContain('limits.scanItems');
    const summed = '{{ range(500)|list|sum }}';
    expect(render(summed, { scanItems: 500 })).toBe('124750');
    expect(renderError(summed, { scanItems: 499 }).message).toContain('limits.scanItems');
  });

  it('sums reads over the render', () => {
    const source = '{% set r = range(100)|list %}{% for i in range(10) %}{{ 0 in r }}{% endfor %}';
    expect(render(source, { scanItems: 1000 })).toBe('True'.repeat(10));
    expect(renderError(source, { scanItems: 990 }).message).toContain('limits.scanItems');
  });

  it('reads short strings for free: a role check costs nothing', () => {
    const source = "{% for i in range(1000) %}{{ 'user' == 'us' ~ 'er' and 'ab' in 'abc' and 'x'|length == 1 }}{% endfor %}";
    expect(render(source, { scanItems: 0 })).toBe('True'.repeat(1000));
  });

  it('pays for a long string constant compared in a condition', () => {
    const long = 'a'.repeat(3200);
    const source = `{% set s = 'a' * 3200 %}{% if s == '${long}' %}equal{% endif %}`;
    expect(render(source, { scanItems: 100 })).toBe('equal');
    expect(renderError(source, { scanItems: 99 }).message).toContain('limits.scanItems');
  });

  it('pays for the list of characters that iterating a string builds', () => {
    const error = renderError("{{ ('ab' * 30000000)|join }}");
    expect(error.code).toBe('TEMPLATE_LIMIT');
    expect(error.message).toContain('limits.buildBytes');
    expect(render("{{ 'abc'|join('-') }}")).toBe('a-b-c');
  });
});

describe('real conversations stay within the default budgets', () => {
  // 2,000 messages, 1,500 of them 4 KB long, with tools and tool calls: far past what any family serves, and linear in every
  // bundled template, so no default limit may refuse it.
  const tools = [{ type: 'function', function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } } }];
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(90);
  const messages: unknown[] = [{ role: 'system', content: 'You are terse.' }];
  for (let i = 0; i < 500; i++) {
    messages.push({ role: 'user', content: `${i}: ${text}` });
    messages.push({ role: 'assistant', content: '', tool_calls: [{ id: `call${String(i).padStart(5, '0')}`, type: 'function', function: { name: 'lookup', arguments: { word: `w${i}` } } }] });
    messages.push({ role: 'tool', tool_call_id: `call${String(i).padStart(5, '0')}`, content: text });
    messages.push({ role: 'assistant', content: text });
  }
  messages.push({ role: 'user', content: 'last' });

  it.each(familyIds)('%s', (family) => {
    const rendered = renderConversation(loadTemplate({ family }), { messages, tools } as never, { args: 'auto' });
    expect(rendered.text.length).toBeGreaterThan(1500 * text.length);
  });
});

describe('templates with very many names parse in linear time', () => {
  // Each took seconds before (a search of the names so far per name); the answers are what jinja2 gives.
  it('a call with 50,000 keywords, and a repeated keyword among them', () => {
    const keywords = Array.from({ length: 50_000 }, (_, i) => `k${i}=${i}`);
    expect(render(`{{ dict(${keywords.join(',')})|length }}`)).toBe('50000');
    const error = (() => {
      try {
        compileTemplate(`{{ dict(${keywords.join(',')},k7=0) }}`);
      } catch (e) {
        return e as { code?: string; message: string };
      }
      throw new Error('compiled');
    })();
    expect(error.code).toBe('TEMPLATE_SYNTAX');
    expect(error.message).toContain('keyword argument repeated: k7');
  });

  it('a macro with 40,000 parameters called by keyword', () => {
    const names = Array.from({ length: 40_000 }, (_, i) => `p${i}`);
    const source = `{% macro m(${names.join(',')}) %}{{ p0 }}{{ p39999 }}{% endmacro %}{{ m(${names.map((n, i) => `${n}=${i}`).join(',')}) }}`;
    expect(render(source)).toBe('039999');
  });
});

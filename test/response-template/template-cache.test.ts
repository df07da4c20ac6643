import { describe, expect, it } from 'vitest';
import { createResponseParser, parseResponse, ResponseTemplateError } from '../../src/index.js';
// The bound is not observable through the public API; the count is read from the module itself.
import { cachedTemplateCount } from '../../src/response-template/template-cache.js';

// parseResponse/createResponseParser keep compiled templates by their JSON: these check that a cached compilation is
// never handed to a template that differs from it in anything the validator or the executor reads.
const base = () => ({
  start_anchor: '<s>',
  fields: {
    answer: { open: '<a>', close: '</a>', content_args: { strip: true } },
    content: { content_args: { strip: false } },
  },
});

const parse = (text: string, template: unknown) => parseResponse(text, template, { prefix: '' });

function loadError(template: unknown): ResponseTemplateError {
  try {
    createResponseParser(template, { prefix: '' });
  } catch (e) {
    expect(e).toBeInstanceOf(ResponseTemplateError);
    return e as ResponseTemplateError;
  }
  throw new Error('expected a load error');
}

describe('compiled response templates are shared by JSON, never across different templates', () => {
  it('templates that differ in one flag keep their own behaviour when interleaved', () => {
    const stripped = base();
    const kept = base();
    kept.fields.answer.content_args.strip = false;
    for (let round = 0; round < 3; round++) {
      expect(parse('<a> x </a>', stripped)['answer']).toBe('x');
      expect(parse('<a> x </a>', kept)['answer']).toBe(' x ');
    }
  });

  it('templates that differ in repeats/join/optional do not share a compilation', () => {
    const template = (answer: Record<string, unknown>) => ({ start_anchor: '<s>', fields: { answer: { open: '<a>', close: '</a>', ...answer }, content: {} } });
    for (let round = 0; round < 2; round++) {
      expect(parse('<a>x</a><a>y</a>', template({}))).toEqual({ answer: 'y' });
      expect(parse('<a>x</a><a>y</a>', template({ repeats: true }))).toEqual({ answer: ['x', 'y'] });
      expect(parse('<a>x</a><a>y</a>', template({ repeats: true, join: '+' }))).toEqual({ answer: 'x+y' });
      expect(() => parse('', template({ optional: false }))).toThrow(/Required response_template fields missing/);
      expect(parse('', template({}))).toEqual({});
    }
  });

  it('a template object changed after a call is read as it is now', () => {
    const template = base();
    expect(parse('<a> x </a>', template)['answer']).toBe('x');
    template.fields.answer.content_args.strip = false;
    expect(parse('<a> x </a>', template)['answer']).toBe(' x ');
    (template.fields.answer as Record<string, unknown>)['open'] = '<b>';
    expect(parse('<a> x </a>', template)).toEqual({ content: '<a> x </a>' });
    // A fresh object with the first JSON reads as the first object did before it was changed.
    expect(parse('<a> x </a>', base())['answer']).toBe('x');
    const withDefaults = { ...base(), defaults: { role: 'assistant' } };
    expect(parse('', withDefaults)).toEqual({ role: 'assistant' });
    withDefaults.defaults.role = 'tool';
    expect(parse('', { ...base(), defaults: { role: 'assistant' } })).toEqual({ role: 'assistant' });
  });

  it('values JSON cannot carry are not conflated with their JSON form', () => {
    // A present key holding undefined is Python's None (an error), unlike an absent key (same JSON).
    expect(parse('<a>x</a>', base())['answer']).toBe('x');
    const withNone = base();
    (withNone.fields.answer as Record<string, unknown>)['close'] = undefined;
    expect(loadError(withNone).message).toContain("'close' must be a string or list of strings, got NoneType");
    // -0 and 0 have the same JSON; a default keeps its own.
    const zero = { ...base(), defaults: { n: 0 } }, negativeZero = { ...base(), defaults: { n: -0 } };
    expect(Object.is(parse('', zero)['n'], 0)).toBe(true);
    expect(Object.is(parse('', negativeZero)['n'], -0)).toBe(true);
    zero.defaults.n = -0;
    expect(Object.is(parse('', zero)['n'], -0)).toBe(true);
    negativeZero.defaults.n = 0;
    expect(Object.is(parse('', negativeZero)['n'], 0)).toBe(true);
    expect(Object.is(parse('', negativeZero)['n'], 0)).toBe(true);
    // A hole in a literal list is not the null JSON would write there.
    const holes = base();
    // eslint-disable-next-line no-sparse-arrays
    (holes.fields.answer as Record<string, unknown>)['open'] = [, '<a>'];
    const nulls = base();
    (nulls.fields.answer as Record<string, unknown>)['open'] = [null, '<a>'];
    expect(parse('<a>x</a>', base())['answer']).toBe('x');
    expect(loadError(nulls).message).toContain('must contain only strings');
    expect(loadError(holes).message).toContain('must contain only strings');
  });

  it('the message is a fresh object each call: defaults mutated by a caller do not leak into the next parse', () => {
    const template = { ...base(), defaults: { role: 'assistant', tags: ['a'] } };
    const first = parse('', template);
    (first['tags'] as string[]).push('b');
    expect(parse('', template)).toEqual({ role: 'assistant', tags: ['a'] });
  });

  it('holds a bounded number of templates', () => {
    for (let i = 0; i < 300; i++) {
      expect(parse(`<a>${i}</a>`, { start_anchor: `<s${i}>`, fields: { answer: { open: '<a>', close: '</a>' } } })).toEqual({ answer: String(i) });
    }
    expect(cachedTemplateCount()).toBeGreaterThan(0);
    expect(cachedTemplateCount()).toBeLessThanOrEqual(64);
  });
});

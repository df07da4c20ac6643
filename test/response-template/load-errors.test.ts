import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileResponseTemplate, createResponseParser, ResponseTemplateError } from '../../src/index.js';
import { hasResponseTemplates, loadTemplate, rtDir, templateNames } from './data.js';

/** Templates in response-templates/templates that transformers rejects at load, and why (SOURCES.md). */
const INVALID: Record<string, string> = {
  'qwen3-xml-no-anchor': 'start_anchor',
  'test-dotted-mixed-string': 'mixes',
  'test-interpolation': 'interpolation',
  'test-join-bad-type': 'must be a string',
  'test-join-no-repeats': 'repeats',
  'test-literal-bad-open-1': 'at least one literal',
  'test-literal-bad-open-2': 'cannot be empty',
  'test-literal-bad-open-3': 'only strings',
  'test-literal-bad-open-4': 'string or list of strings',
  'test-named-groups-no-transform': 'named group',
  'test-two-implicit': 'implicit',
  'test-unknown-parser': 'unknown content parser',
  'test-version-2': 'version',
};

function loadError(template: unknown, prefix: string | null = ''): ResponseTemplateError {
  try {
    createResponseParser(template, { prefix });
  } catch (e) {
    expect(e).toBeInstanceOf(ResponseTemplateError);
    return e as ResponseTemplateError;
  }
  throw new Error('expected a load error');
}

describe.skipIf(!hasResponseTemplates)('load-time validation of the published templates', () => {
  for (const name of templateNames()) {
    if (INVALID[name]) {
      it(`${name}: ValueError at load (${INVALID[name]})`, () => {
        const err = loadError(loadTemplate(name));
        expect(err.pythonType).toBe('ValueError');
        expect(err.phase).toBe('load');
        expect(err.code).toBe('RESPONSE_TEMPLATE_INVALID');
        expect(err.message).toContain(INVALID[name]);
        expect(err.message).not.toContain('\n');
        // The template error wins over a missing prefix, as in transformers.
        expect(loadError(loadTemplate(name), null).code).toBe('RESPONSE_TEMPLATE_INVALID');
      });
    } else {
      it(`${name}: compiles`, () => {
        const compiled = compileResponseTemplate(loadTemplate(name));
        expect(compiled.source).toEqual(loadTemplate(name));
      });
    }
  }
});

describe.skipIf(!hasResponseTemplates)('the chatfmt family drafts (chatfmt-family-drafts.json)', () => {
  const drafts = hasResponseTemplates
    ? (JSON.parse(readFileSync(join(rtDir, 'chatfmt-family-drafts.json'), 'utf8')) as { families: Record<string, unknown> }).families
    : {};
  for (const [family, template] of Object.entries(drafts)) {
    it(`${family}: compiles`, () => expect(compileResponseTemplate(template).source).toBe(template));
  }
});

describe('load-time validation', () => {
  const base = (field: Record<string, unknown>) => ({ start_anchor: '<a>', fields: { x: field } });
  it.each([
    ['not a dict', [1]],
    ['unknown top-level key', { start_anchor: 'a', fields: { x: {} }, extra: 1 }],
    ['both anchors', { start_anchor: 'a', start_anchor_pattern: 'a', fields: { x: {} } }],
    ['empty fields', { start_anchor: 'a', fields: {} }],
    ['unknown field key', base({ open: '<x>', colse: '</x>' })],
    ['open and open_pattern', base({ open: '<x>', open_pattern: '<x>' })],
    ['transform_each without transform', base({ open: '<x>', transform_each: true })],
    ['bad pattern', base({ open_pattern: '(<x>' })],
    ['zero-width open and close (transformers would loop forever)', base({ open_pattern: '(?=x)', close_pattern: '\\b' })],
  ])('%s → ValueError', (_, template) => {
    const err = loadError(template);
    expect(err.pythonType).toBe('ValueError');
    expect(err.phase).toBe('load');
  });

  it.each([
    ['(?i)abc', 'inline flags'], ['(?>a)', 'atomic'], ['a++', 'possessive'], ['[[:alpha:]]', 'POSIX'],
    ['a\\Kb', '\\K'], ['(?<=a+)b', 'lookbehind'], ['\\N{DASH}', '\\N'], ['(?R)', 'recursion'],
  ])('refuses %s with a clear message', (pattern, what) => {
    const err = loadError(base({ open_pattern: pattern }));
    expect(err.message).toContain(what);
    expect(err.message).not.toContain('\n');
  });

  it('requires prefix (ValueError), takes only a str and tool dicts (TypeError)', () => {
    const t = { start_anchor: 'a', fields: { content: {} } };
    expect(loadError(t, null).pythonType).toBe('ValueError');
    expect(() => createResponseParser(t, { prefix: undefined })).toThrow(/requires `prefix`/);
    const badPrefix = loadError(t, 5 as unknown as string);
    expect([badPrefix.pythonType, badPrefix.code]).toEqual(['TypeError', 'RESPONSE_TEMPLATE_ARGUMENT']);
    // Entries that are not tool dicts are skipped, as transformers skips them.
    expect(createResponseParser(t, { prefix: '', tools: ['f', 1] }).feed('x')).toHaveLength(2);
    expect(() => createResponseParser(t, { prefix: '', tools: 'f' as unknown as [] })).toThrow(/tools must be a list/);
  });
});

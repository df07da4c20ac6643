import { describe, expect, it } from 'vitest';
import { castResponseToolCalls, coerceToolArgument, parseResponse, toolSchemaTypes } from '../../src/index.js';
import { coerceUnits, hasResponseTemplates } from './data.js';

describe.skipIf(!hasResponseTemplates)('tools= casting units (coerce.jsonl)', () => {
  const units = coerceUnits();
  it('has the 24 published units', () => expect(units.length).toBe(24));
  for (const u of units) {
    it(`${u.kind}: ${u.id}`, () => {
      if (u.kind === 'coerce') expect(coerceToolArgument(u['raw'] as string, u['types'] as string[])).toEqual(u['expected']);
      else if (u.kind === 'schema_types') expect(toolSchemaTypes(u['schema'])).toEqual(u['expected']);
      else {
        const call = structuredClone(u['call']);
        const result = castResponseToolCalls(call, u['tools'] as unknown[]);
        expect(result).toEqual(u['expected']);
        // Cast in place, as transformers does: the same object comes back.
        expect(result).toBe(call);
      }
    });
  }
});

describe('tools= casting follows Python int()/float()', () => {
  it.each([
    ['+7', ['integer'], 7], ['007', ['integer'], 7], ['1_000', ['integer'], 1000], ['٣', ['integer'], 3],
    ['7.0', ['integer'], '7.0'], ['1e3', ['number'], 1000], ['-0', ['number'], 0], ['-0.0', ['number'], -0], ['1_0.5', ['number'], 10.5], ['inf', ['number'], 'inf'],
    [' None ', ['null'], null], ['[1]', ['object', 'array'], [1]], ['x', ['string', 'integer'], 'x'],
  ])('%j as %j → %j', (raw, types, expected) => {
    expect(coerceToolArgument(raw, types)).toEqual(expected);
  });

  it('schema types: nullable adds null once; oneOf reads like anyOf', () => {
    expect(toolSchemaTypes({ type: ['integer', 'null'], nullable: true })).toEqual(['integer', 'null']);
    expect(toolSchemaTypes({ oneOf: [{ type: 'integer' }, { type: 'null' }] })).toEqual(['integer', 'null']);
  });

  it('casts at region close, so the event value is already typed, and leaves undeclared keys alone', () => {
    const template = {
      start_anchor: '<a>',
      fields: {
        tool_calls: {
          open_pattern: '<call (?P<name>\\w+)>', close: '</call>', repeats: true, content: 'kv-lines',
          transform: { type: 'function', function: { name: '{name}', arguments: '{content}' } },
        },
      },
    };
    const tools = [{ name: 'f', parameters: { properties: { n: { type: 'integer' }, ok: { anyOf: [{ type: 'boolean' }] } } } }];
    const got = parseResponse('<call f>n: 42\nok: True\nother: 5</call>', template, { prefix: '', tools });
    expect(got).toEqual({ tool_calls: [{ type: 'function', function: { name: 'f', arguments: { n: 42, ok: true, other: '5' } } }] });
  });
});

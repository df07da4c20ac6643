import { describe, expect, it, vi } from 'vitest';

// Counts grammar compilations: importing the registry must compile none (start-up cost), a family's first
// parse compiles its grammar once, and later parses reuse it.
const compilations = vi.hoisted(() => ({ count: 0 }));
vi.mock('../src/parse/engine/machine.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/parse/engine/machine.js')>();
  return {
    ...real,
    createGrammarCore: (...args: Parameters<typeof real.createGrammarCore>) => {
      compilations.count += 1;
      return real.createGrammarCore(...args);
    },
  };
});

const { families, parse } = await import('../src/core.js');

describe('the family registry builds parsers lazily', () => {
  it('compiles no grammar at import, one on a family’s first parse, none after', () => {
    expect(Object.keys(families)).toHaveLength(15);
    expect(compilations.count).toBe(0);
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    expect(parse(call, { family: 'hermes' }).tool_calls?.[0]?.function.name).toBe('get_weather');
    expect(compilations.count).toBe(1);
    expect(JSON.parse(parse(call, { family: 'hermes' }).tool_calls?.[0]?.function.arguments ?? 'null')).toEqual({ city: 'Paris' });
    expect(compilations.count).toBe(1);
  });
});

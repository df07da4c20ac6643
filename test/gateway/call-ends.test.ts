// The parser's opt-in `tool_call_ends` (what the gateway releases held calls on): every confirmed call ends exactly
// once, after its last argument fragment; a withdrawn call never ends; without the option nothing changes.
import { describe, expect, it } from 'vitest';
import { createStreamParser, familyIds, type Delta } from '../../src/index.js';
import { codePointChunks } from '../helpers/chunkings.js';
import { wireTools, writeWire } from '../helpers/wire.js';

const calls = [
  { name: 'get_weather', arguments: { city: 'Paris' } },
  { name: 'lookup', arguments: { query: 'x' } },
];

function stream(family: string, text: string, prefix: string | undefined, reportCallEnds?: boolean): Delta[] {
  const parser = createStreamParser({ family, tools: wireTools, ...(prefix !== undefined ? { prefix } : {}), ...(reportCallEnds ? { reportCallEnds } : {}) });
  return [...codePointChunks(text).flatMap((chunk) => parser.push(chunk)), ...parser.finish()];
}

describe.each([...familyIds])('%s', (family) => {
  it('ends each call once, after its arguments', () => {
    const wire = writeWire(family, { parts: [{ text: 'Sure.' }, { calls }] });
    const deltas = stream(family, wire.completion, wire.prefix, true);
    const ends = deltas.flatMap((delta) => delta.tool_call_ends ?? []);
    expect(ends).toEqual([0, 1]);
    for (const index of ends) {
      const endAt = deltas.findIndex((delta) => delta.tool_call_ends?.includes(index));
      const lastFragment = deltas.reduce((last, delta, at) => (delta.tool_calls?.some((part) => part.index === index) ? at : last), -1);
      expect(endAt).toBeGreaterThan(lastFragment);
    }
    expect(stream(family, wire.completion, wire.prefix).some((delta) => 'tool_call_ends' in delta)).toBe(false);
  });

  it('never ends a call it withdraws', () => {
    const wire = writeWire(family, { parts: [{ calls: [calls[0]!] }] });
    const cut = wire.completion.slice(0, wire.completion.indexOf('Paris') + 2);
    const deltas = stream(family, cut, wire.prefix, true);
    expect(deltas.flatMap((delta) => delta.tool_call_ends ?? [])).toEqual([]);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createResponseParser, type ResponseEvent } from '../../src/index.js';

// Patterns made only of literals are searched without the regex VM (indexOf, then the partial-match tail by hand).
// Wrapping the same alternation in a capturing group keeps it on the VM, so the two templates below must read every
// text, in every chunking, identically: same events, same message, same errors.
const template = (wrap: (alternation: string) => string, open: string, close: string, end: string) => ({
  start_anchor: wrap('<s>|<start>'),
  fields: {
    answer: { open_pattern: wrap(open), close_pattern: wrap(close), repeats: true },
    content: { close_pattern: wrap(end), repeats: true },
  },
});
const shapes: Array<[string, string, string]> = [
  ['<ab>|<a>', '</a>|</ab>', '<e>|<eof>'],
  ['<a>|<ab>', '</ab>|</a>', '<eof>|<e>'],
  ['aba', 'ab|b', 'a>'],
  // One alternative a prefix of another: at a shared start the first in pattern order wins, not the longest.
  ['<ab|<a', '</|</a', 'e|eo'],
  ['<a|<ab', '</a|</', 'eo|e'],
];

function run(t: unknown, prefix: string, chunks: string[]): unknown {
  const events: ResponseEvent[] = [];
  try {
    const parser = createResponseParser(t, { prefix });
    events.push(...parser.initialEvents);
    for (const chunk of chunks) events.push(...parser.feed(chunk));
    const { message, events: last } = parser.finalize();
    return { events: [...events, ...last], message };
  } catch (e) {
    return { events, error: (e as Error).message };
  }
}

describe('literal-only delimiters', () => {
  it('read every text and chunking exactly as the regex VM does', () => {
    const text = fc.array(fc.constantFrom('<', 'a', 'b', '>', '/', 'e', 'o', 'f', 's', 'x', '\ud83d\ude00'), { maxLength: 40 }).map((cs) => cs.join(''));
    fc.assert(fc.property(fc.constantFrom(...shapes), text, text, fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 20 }), (shape, prefix, body, cuts) => {
      const chunks: string[] = [];
      let at = 0;
      for (const cut of cuts) { chunks.push(body.slice(at, at + cut)); at += cut; }
      chunks.push(body.slice(at));
      const literal = template((a) => a, ...shape), vm = template((a) => `(${a})`, ...shape);
      expect(run(literal, prefix, chunks)).toEqual(run(vm, prefix, chunks));
      expect(run(literal, prefix, [body])).toEqual(run(vm, prefix, [body]));
    }), { numRuns: 1500 });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accumulateDeltas, createStreamParser, familyIds, familyInfo, parse, parserFamilies } from '../../src/index.js';

// Hostile output built from each family's own markers (openers, closers, stop strings, their prefixes) and JSON/XML
// debris: the parser must finish (an opener left for the header once made it loop), never throw, lose no text, and
// stream exactly as it parses in batch.
function alphabet(family: (typeof familyIds)[number]): string[] {
  const m = parserFamilies[family].markers;
  const markers = [
    ...m.callOpen, ...m.callClose, ...(m.sectionOpen ?? []), ...(m.sectionClose ?? []),
    ...(m.reasoningOpen ?? []), ...(m.reasoningClose ?? []), ...familyInfo[family].stopStrings,
  ];
  return [...new Set([...markers, ...markers.map((marker) => marker.slice(0, Math.ceil(marker.length / 2))), '{"name": "f", "arguments": {', '"', '}', '>', '\n', 'x', ' ', 'é🎉'])];
}

describe('marker soup', () => {
  for (const family of familyIds) {
    it(family, () => {
      const soup = fc.array(fc.constantFrom(...alphabet(family)), { maxLength: 40 }).map((parts) => parts.join(''));
      fc.assert(
        fc.property(soup, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }), (text, sizes) => {
          const ids = ({ index }: { index: number }) => `call_${index}`;
          const batch = parse(text, { family, idGenerator: ids });
          const stream = createStreamParser({ family, idGenerator: ids });
          const deltas = [];
          for (let i = 0, k = 0; i < text.length; i += sizes[k++ % sizes.length]!) deltas.push(...stream.push(text.slice(i, i + sizes[k % sizes.length]!)));
          deltas.push(...stream.finish());
          expect(accumulateDeltas(deltas)).toEqual(batch);
          // Text is moved, never invented: what content and reasoning hold fits in the input.
          expect((batch.content ?? '').length + (batch.reasoning_content ?? '').length).toBeLessThanOrEqual(text.length);
        }),
        { numRuns: 150, seed: 20261124 },
      );
    });
  }
});

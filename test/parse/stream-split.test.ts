import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { familyIds, parse } from '../../src/index.js';
import type { ParsedMessage } from '../../src/types.js';
import { codePointChunks, safeOffset, seedOf, splitAt } from '../helpers/chunkings.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas } from '../helpers/stream.js';
import { messageArbitrary, valueFits, wireFamilies, writeWire, type WireCase, type WireMessage } from '../helpers/wire.js';

// Split invariance on generated completions (lessons sglang#35563, vllm#48020, vllm#32152): whatever
// the chunking, the stream parser must produce exactly the batch result, and the batch result must be
// the message the completion was written from.

const runs = 60;
const cutScale = 10_000;

function fits(family: string, message: WireMessage): boolean {
  return message.parts.every((part) => !('calls' in part) || part.calls.every((call) => Object.values(call.arguments).every((v) => valueFits(family, v))));
}

function options(family: string, wire: WireCase) {
  return { family, tools: wire.tools ?? null, ...(wire.prefix !== undefined ? { prefix: wire.prefix } : {}) };
}

function expectSameStream(family: string, wire: WireCase, chunks: string[], batch: ParsedMessage, label: string): void {
  const rebuilt = reconstruct(streamDeltas(chunks, options(family, wire)));
  if (!isDeepStrictEqual(rebuilt, batch)) {
    expect(rebuilt, `${label} chunks ${JSON.stringify(chunks)}`).toEqual(batch);
  }
}

describe('split invariance on generated completions', () => {
  it('covers every family', () => {
    expect(Object.keys(wireFamilies).sort()).toEqual([...familyIds].sort());
  });

  for (const family of familyIds) {
    it(`${family}: batch = the written message; any chunking = batch`, () => {
      const hasReasoning = wireFamilies[family]!.reasoning !== undefined;
      const message = messageArbitrary(hasReasoning).filter((candidate) => fits(family, candidate));
      const cuts = fc.uniqueArray(fc.integer({ min: 1, max: cutScale - 1 }), { maxLength: 12 });
      fc.assert(
        fc.property(message, cuts, (generated, cutPoints) => {
          const wire = writeWire(family, generated);
          const batch = parse(wire.completion, { ...options(family, wire), idGenerator });
          expect(
            {
              content: batch.content,
              reasoning_content: batch.reasoning_content,
              tool_calls: batch.tool_calls.map((call) => ({ name: call.function.name, arguments: JSON.parse(call.function.arguments), id: call.id })),
              diagnostics: batch.diagnostics.map((diagnostic) => diagnostic.code),
            },
            `completion ${JSON.stringify(wire.completion)} prefix ${JSON.stringify(wire.prefix)}`,
          ).toEqual({
            content: wire.content,
            reasoning_content: wire.reasoning,
            tool_calls: wire.calls.map((call) => ({ name: call.name, arguments: call.arguments, id: call.id })),
            diagnostics: [],
          });
          const text = wire.completion;
          const offsets = cutPoints.map((cut) => safeOffset(text, Math.floor((cut * text.length) / cutScale)));
          expectSameStream(family, wire, splitAt(text, offsets), batch, 'random partition');
          expectSameStream(family, wire, codePointChunks(text), batch, '1 code point');
        }),
        { seed: seedOf(`stream-split/${family}`), numRuns: runs },
      );
    });
  }
});

import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { accumulateDeltas, familyIds, parse } from '../../src/index.js';
import type { ParsedMessage } from '../../src/types.js';
import { codePointChunks, markerChunkings, partitionArbitrary, seedOf } from '../helpers/chunkings.js';
import { loadParseFixtures, type ExpectedMessage, type ParseFixture } from '../helpers/parse-fixtures.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas } from '../helpers/stream.js';

const fixtures = loadParseFixtures();
const randomPartitions = 200;

function options(fixture: ParseFixture) {
  return {
    family: fixture.family,
    ...(fixture.tools ? { tools: fixture.tools } : {}),
    ...(fixture.prefix !== undefined ? { prefix: fixture.prefix } : {}),
  };
}

function batch(fixture: ParseFixture): ParsedMessage {
  return parse(fixture.completion, { ...options(fixture), idGenerator });
}

/**
 * Families whose arguments chatfmt writes as JSON from tags: the key order is the wire's, so their fixtures compare the
 * arguments' key order too (issue 16), not only the parsed objects.
 */
const TAG_FAMILIES = new Set(['qwen3-coder', 'glm-4.5', 'seed-oss', 'minimax-m2', 'deepseek-v3.2']);

/** Every object's keys in order, nested objects included (what toEqual on parsed objects does not compare). */
function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (value === null || typeof value !== 'object') return null;
  return Object.entries(value).map(([key, inner]) => [key, keyOrder(inner)]);
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { '<not JSON>': text };
  }
}

/** The parts of a result that expected.json speaks about, shaped like expected.json. */
function comparable(actual: ParsedMessage, expected: ExpectedMessage): ExpectedMessage {
  const view: ExpectedMessage = {
    content: actual.content,
    reasoning_content: actual.reasoning_content,
    tool_calls: actual.tool_calls.map((call, i) => ({
      name: call.function.name,
      arguments: parsedArguments(call.function.arguments) as Record<string, unknown>,
      ...(expected.tool_calls[i]?.id !== undefined ? { id: call.id } : {}),
      ...(expected.tool_calls[i]?.arguments_text !== undefined ? { arguments_text: call.function.arguments } : {}),
    })),
  };
  if (expected.diagnostics) {
    view.diagnostics = actual.diagnostics.map((diagnostic, i) => ({
      code: diagnostic.code,
      ...(expected.diagnostics?.[i]?.span !== undefined && diagnostic.span ? { span: diagnostic.span } : {}),
    }));
  }
  return view;
}

function withoutNote(expected: ExpectedMessage): ExpectedMessage {
  const { note: _note, ...rest } = expected;
  return rest;
}

/** Stream under this chunking; the protocol holds and the result equals batch exactly. */
function expectStreamEqualsBatch(fixture: ParseFixture, chunks: string[], expectedBatch: ParsedMessage, label: string): void {
  const deltas = streamDeltas(chunks, options(fixture));
  let rebuilt: ParsedMessage;
  try {
    rebuilt = reconstruct(deltas);
  } catch (error) {
    throw new Error(`${label}: ${(error as Error).message}\n  chunks ${JSON.stringify(chunks)}`);
  }
  // Fast path first: thousands of chunkings run per case, and expect() is only needed for the diff.
  if (!isDeepStrictEqual(rebuilt, expectedBatch)) {
    expect(rebuilt, `${label}: stream differs from batch; chunks ${JSON.stringify(chunks)}`).toEqual(expectedBatch);
  }
  const accumulated = accumulateDeltas(deltas);
  if (!isDeepStrictEqual(accumulated, expectedBatch)) {
    expect(accumulated, `${label}: accumulateDeltas differs from batch`).toEqual(expectedBatch);
  }
}

describe('parse fixture corpus', () => {
  it('has every family, and every family has the core cases', () => {
    const families = new Set(fixtures.map((fixture) => fixture.family));
    expect([...families].sort()).toEqual(
      [...familyIds].sort(),
    );
    for (const family of families) {
      const names = fixtures.filter((fixture) => fixture.family === family).map((fixture) => fixture.name);
      for (const core of ['no-call', 'truncated-call', 'unknown-tool']) expect(names, family).toContain(core);
    }
  });
});

for (const family of [...new Set(fixtures.map((fixture) => fixture.family))]) {
  describe(`parse fixtures: ${family}`, () => {
    for (const fixture of fixtures.filter((candidate) => candidate.family === family)) {
      const id = `${fixture.family}/${fixture.name}`;

      it(`${fixture.name}: batch result matches expected.json`, () => {
        const expected = withoutNote(fixture.expected);
        const actual = batch(fixture);
        expect(comparable(actual, expected), fixture.expected.note).toEqual(expected);
        if (TAG_FAMILIES.has(fixture.family)) {
          const order = (calls: readonly unknown[]) => calls.map(keyOrder);
          const actualOrder = order(actual.tool_calls.map((call) => parsedArguments(call.function.arguments)));
          expect(actualOrder, 'argument key order (the wire order)').toEqual(order(expected.tool_calls.map((call) => call.arguments)));
        }
      });

      it(`${fixture.name}: stream = batch (whole, 1 code point, marker splits)`, () => {
        const expectedBatch = batch(fixture);
        expectStreamEqualsBatch(fixture, [fixture.completion], expectedBatch, 'whole');
        expectStreamEqualsBatch(fixture, codePointChunks(fixture.completion), expectedBatch, '1 code point');
        for (const { name, chunks } of markerChunkings(fixture.completion)) {
          expectStreamEqualsBatch(fixture, chunks, expectedBatch, name);
        }
      });

      it(`${fixture.name}: stream = batch (${randomPartitions} seeded random partitions)`, () => {
        const expectedBatch = batch(fixture);
        fc.assert(
          fc.property(partitionArbitrary(fixture.completion), (chunks) => {
            expectStreamEqualsBatch(fixture, chunks, expectedBatch, 'random partition');
          }),
          { seed: seedOf(id), numRuns: randomPartitions },
        );
      });
    }
  });
}

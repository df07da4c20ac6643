import fc from 'fast-check';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '../../src/core.js';
import { markerChunkings, partitionArbitrary, seedOf } from '../helpers/chunkings.js';
import { loadParseFixtures } from '../helpers/parse-fixtures.js';
import { once } from '../helpers/shared.js';
import { runConformance, type ConformanceInput } from './conformance.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const conversationsDir = join(root, 'fixtures', 'conversations');
const goldenDir = join(root, 'fixtures', 'render', 'family');
const RANDOM_CHUNKINGS = 5;

export interface RenderGolden {
  text: string;
  /** UTF-16 offsets, as the library reports them (the goldens hold code-point offsets, as Python does). */
  spans: Array<[number, number]>;
}

/**
 * The subset: each family's template on this project's own conversations as given (`--args keep`), wherever the
 * jinja2 golden of that render exists; every parse fixture, streamed whole, by code point, split around its markers
 * and in a few seeded random partitions.
 */
export function conformanceCases(): { input: ConformanceInput; goldens: Map<string, RenderGolden> } {
  const render: ConformanceInput['render'] = [];
  const goldens = new Map<string, RenderGolden>();
  const conversations = readdirSync(conversationsDir).filter((file) => file.endsWith('.json')).sort();
  for (const family of core.familyIds) {
    for (const file of conversations) {
      const stem = file.slice(0, -'.json'.length);
      const goldenFile = join(goldenDir, family, `${stem}.keep.spans.json`);
      if (!existsSync(goldenFile)) continue;
      const golden = JSON.parse(readFileSync(goldenFile, 'utf8')) as { text: string; generation_spans: Array<[number, number]> };
      render.push({ family, name: stem, conversation: readFileSync(join(conversationsDir, file), 'utf8') });
      goldens.set(`${family}/${stem}`, { text: golden.text, spans: golden.generation_spans.map(([start, end]) => [utf16At(golden.text, start), utf16At(golden.text, end)]) });
    }
  }
  const parse = loadParseFixtures().map((fixture) => {
    const text = fixture.completion;
    const chunkings = [
      ...markerChunkings(text).map(({ chunks }) => chunks),
      ...fc.sample(partitionArbitrary(text), { seed: seedOf(`${fixture.family}/${fixture.name}`), numRuns: RANDOM_CHUNKINGS }),
    ];
    return {
      family: fixture.family,
      name: fixture.name,
      completion: text,
      ...(fixture.tools ? { tools: fixture.tools } : {}),
      ...(fixture.prefix !== undefined ? { prefix: fixture.prefix } : {}),
      cuts: chunkings.map(cutsOf),
    };
  });
  return { input: { now: '2025-01-15T12:00:00Z', render, parse }, goldens };
}

function utf16At(text: string, codePoints: number): number {
  return Array.from(text).slice(0, codePoints).join('').length;
}

function cutsOf(chunks: string[]): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (const chunk of chunks.slice(0, -1)) cuts.push((at += chunk.length));
  return cuts;
}

/** The input, and the core's results on it in this Node process: what every other environment must reproduce. */
export const nodeBaseline = once(() => {
  const { input, goldens } = conformanceCases();
  return { input, goldens, output: runConformance(core, input) };
});

/** What crosses from a page, a worker or a vm context: JSON. */
export function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

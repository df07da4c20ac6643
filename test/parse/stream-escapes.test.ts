import { describe, expect, it } from 'vitest';
import { createStreamParser, familyIds, formatTurn, parse } from '../../src/index.js';
import { parseWork } from '../../src/parse/engine/work.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas, writeFileTools } from '../helpers/stream.js';

// Issue 18, round 7: the raw-text argument families (tagged XML-like arguments, Gemma's object notation) escape each
// streamed fragment of a string value for JSON. Streamed a few bytes a push, code repeats the same few fragments that
// need escaping (`("`, `", `, a newline and indent), and building each escaped copy cost more than the rest of the
// push: tiny fragments are now escaped through a small cache. Counted with the engine's counters
// (src/parse/engine/work.ts), not timed; exactness against the batch parse under every chunking.

const tools = writeFileTools;
const rawTextFamilies = ['qwen3-coder', 'seed-oss', 'glm-4.5', 'minimax-m2', 'deepseek-v3.2', 'gemma-4'];

function completion(family: string, args: string, content = 'Writing.'): { text: string; prefix: string } {
  const call = { id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a.py', content: args } } };
  const formatted = formatTurn({ role: 'assistant', content, tool_calls: [call] }, { family, tools });
  return { text: formatted.completion, prefix: formatted.prompt };
}

function chunksOf(text: string, size: number, offset = 0): string[] {
  const chunks = offset > 0 ? [text.slice(0, offset)] : [];
  for (let i = offset; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** A line of code 24 characters long (a multiple of 4): streamed in 4-byte pushes, every line cuts the same way. */
const line = 'x = f("a", "b\\\\c")# "y"\n';

describe('streamed string values: escaping repeated fragments', () => {
  it('the code line is 24 characters and needs escaping in most of its 4-byte pieces', () => {
    expect(line.length).toBe(24);
    expect(chunksOf(line, 4).filter((piece) => JSON.stringify(piece).length > piece.length + 2).length).toBeGreaterThanOrEqual(4);
  });

  for (const family of rawTextFamilies) {
    it(`${family}: 4-byte pushes escape each distinct fragment once, not once a push`, () => {
      const code = `${line.repeat(300)}end`;
      const { text, prefix } = completion(family, code);
      const options = { family, tools, prefix, idGenerator };
      const batch = parse(text, options);
      expect(JSON.parse(batch.tool_calls[0]!.function.arguments).content).toBe(code);
      const parser = createStreamParser(options);
      const before = parseWork.escapesBuilt;
      const deltas = chunksOf(text, 4).flatMap((chunk) => parser.push(chunk));
      deltas.push(...parser.finish());
      const built = parseWork.escapesBuilt - before;
      // 300 lines, at least 4 of each line's 6 pieces to escape: 1,200 escapes without the cache. A line's pieces
      // meet the value's start in at most a few alignments (the header's length decides where the first cut falls).
      expect(built).toBeLessThan(60);
      expect(reconstruct(deltas)).toEqual(batch);
    });
  }
});

describe('streamed string values: tiny fragments that share a cache slot', () => {
  // More distinct fragments needing escape than the cache has slots, so slots are taken over again and again: every
  // fragment must still get its own escape.
  const specials = ['"', '\\', '\n', '\t', '\u0001', '\u001f', '\r', '\b', '\f'];
  const letters = ['a', 'Z', '0', ' ', '<', '{', 'é', '😀'];
  const pieces: string[] = [];
  for (const s of specials) for (const a of letters) for (const b of letters) pieces.push(`${a}${s}${b}`, `${s}${a}${b}`, `${a}${b}${s}${s}`);
  const value = pieces.join('');

  for (const family of rawTextFamilies) {
    it(`${family}: ${pieces.length * 3} distinct pieces, streamed in 1- to 8-byte chunks, rebuild the batch result`, () => {
      const { text, prefix } = completion(family, value);
      const options = { family, tools, prefix };
      const batch = parse(text, { ...options, idGenerator });
      expect(JSON.parse(batch.tool_calls[0]!.function.arguments).content).toBe(value);
      for (const size of [1, 3, 4, 5, 8]) {
        for (const offset of [0, 1, 2]) {
          expect(reconstruct(streamDeltas(chunksOf(text, size, offset), options)), `chunks of ${size} from ${offset}`).toEqual(batch);
        }
      }
    });
  }
});

describe('streamed text: look-alikes of every marker', () => {
  // The fast lane asks whether a chunk could hold a marker by the pair of characters at each marker lead: text that
  // begins each marker of the completion and then departs from it must stream as it parses, wherever chunks cut it.
  for (const family of familyIds) {
    it(`${family}: proper prefixes of the completion's own tags, in content, reasoning and arguments`, () => {
      const { text: plain } = completion(family, 'x');
      const tags = new Set<string>();
      for (const match of plain.matchAll(/<[^<>\n]{1,40}>|\[[A-Z_]{2,20}\]/g)) tags.add(match[0]);
      expect(tags.size, plain).toBeGreaterThan(0);
      const alike: string[] = [];
      for (const tag of tags) for (let cut = 1; cut < tag.length; cut++) alike.push(`${tag.slice(0, cut)}~`);
      const soup = alike.join(' ');
      const message = {
        role: 'assistant' as const,
        reasoning_content: `Think ${soup} done.`,
        content: family === 'gpt-oss' ? '' : `Say ${soup} now.`,
        tool_calls: [{ id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a.py', content: soup } } }],
      };
      const formatted = formatTurn(message, { family, tools });
      const options = { family, tools, prefix: formatted.prompt };
      const batch = parse(formatted.completion, { ...options, idGenerator });
      // Look-alikes inside the call may make it no call for the family's reader: stream and batch must agree either way.
      expect(JSON.stringify(batch), formatted.completion).toContain('~');
      for (const size of [2, 3, 4, 5, 6]) {
        for (let offset = 0; offset < size; offset++) {
          const rebuilt = reconstruct(streamDeltas(chunksOf(formatted.completion, size, offset), options));
          expect(rebuilt, `chunks of ${size} from ${offset}`).toEqual(batch);
        }
      }
    });
  }
});

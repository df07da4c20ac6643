import { describe, expect, it } from 'vitest';
import { createStreamParser, familyIds, formatTurn, parse } from '../../src/index.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas, writeFileTools } from '../helpers/stream.js';

// Small chunks that only extend the current text or argument string take a fast lane (no buffer, no events): these
// check it agrees with the batch parse wherever a chunk edge falls, escapes and marker look-alikes included.

const tools = writeFileTools;

/** Everything a string lane must escape or hold: quotes, backslashes, controls, a split surrogate pair, tags. */
const tricky = 'say "hi" \\ back\\slash\n\ttab \u0001\u001f ctl <b>bold</b> < <= <| </ ok 😀 end\r\n';

function sample(family: string): { text: string; prefix: string } {
  const message = {
    role: 'assistant' as const,
    reasoning_content: `Plan: ${tricky}think < more.`,
    content: family === 'gpt-oss' ? '' : 'Writing <i>it</i> now.',
    tool_calls: [{ id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a<b>.py', content: `${tricky}${tricky}` } } }],
  };
  const formatted = formatTurn(message, { family, tools });
  return { text: formatted.completion, prefix: formatted.prompt };
}

function chunksOf(text: string, size: number, offset: number): string[] {
  const chunks = [text.slice(0, offset)];
  for (let i = offset; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

describe('streaming fast lane', () => {
  for (const family of familyIds) {
    it(`${family}: every small chunking rebuilds the batch result`, () => {
      const { text, prefix } = sample(family);
      const options = { family, tools, prefix };
      const batch = parse(text, { ...options, idGenerator });
      expect(batch.tool_calls.length, text).toBe(1);
      for (const size of [1, 2, 3, 4, 5, 7]) {
        for (let offset = 0; offset < size; offset++) {
          const rebuilt = reconstruct(streamDeltas(chunksOf(text, size, offset), options));
          expect(rebuilt, `chunks of ${size} after ${offset}`).toEqual(batch);
        }
      }
    });
  }

  it('a push inside an argument string settles exactly its own text, in one delta', () => {
    for (const family of ['hermes', 'mistral', 'qwen3-coder', 'gemma-4', 'gpt-oss', 'kimi-k2']) {
      const { text, prefix } = sample(family);
      const at = text.lastIndexOf('back');
      const parser = createStreamParser({ family, tools, prefix, idGenerator });
      parser.push(text.slice(0, at));
      expect(parser.push('abcd'), family).toEqual([{ tool_calls: [{ index: 0, function: { arguments: 'abcd' } }] }]);
    }
  });

  it('a push of text that could only start a marker settles nothing and returns no delta', () => {
    const parser = createStreamParser({ family: 'qwen3', tools, prefix: '' });
    expect(parser.push('Hello there')).toEqual([{ content: 'Hello there' }]);
    expect(parser.push('  ')).toEqual([]);
    expect(parser.push('<tool')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createStreamParser, familyIds, formatTurn, parse } from '../../src/index.js';
import { parseWork } from '../../src/parse/engine/work.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, writeFileTools } from '../helpers/stream.js';

// Issue 18: a 4-byte push that ends in what could begin a marker (`<` of `<b>` in code, `</` of `</b>`) used to leave
// the fast lane for the general push, and so did every push after it while that tail was held: in the tagged-argument
// families a tenth of all pushes. The lane now takes such a chunk, holds the tail and reads it again in front of the
// next one. Counted with the engine's push counters (src/parse/engine/work.ts), not timed.

const tools = writeFileTools;

/** Code full of marker look-alikes: every push boundary falls after a `<` or `</` somewhere. */
const code = 'x = "<b>1</b>" if a < b else c <= d  # <i>\n'.repeat(24);

/** Text whose only marker look-alike is `<`, at every offset. */
const prose = 'one <b>two</b> three < four <i>five</i> six '.repeat(24);

function completion(family: string, content: string, args?: string): { text: string; prefix: string } {
  const call = { id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a.py', content: args } } };
  // Some templates drop the text of a turn that calls a tool: the content case is a turn without one.
  const message = { role: 'assistant' as const, content, ...(args === undefined ? {} : { tool_calls: [call] }) };
  const formatted = formatTurn(message, { family, tools });
  return { text: formatted.completion, prefix: formatted.prompt };
}

/**
 * Streams `text` in 4-character chunks and counts the pushes inside `text[from..to)` that leave the fast lane (the
 * first push there, which may have to settle the structure before it, is not counted).
 */
function slowPushesWithin(family: string, prefix: string, text: string, from: number, to: number): { slow: number; pushes: number; rebuilt: unknown } {
  const parser = createStreamParser({ family, tools, prefix, idGenerator });
  const deltas = [...parser.push(text.slice(0, from + 4))];
  const before = parseWork.slowPushes;
  let pushes = 0;
  let at = from + 4;
  for (; at + 4 <= to; at += 4, pushes++) deltas.push(...parser.push(text.slice(at, at + 4)));
  const slow = parseWork.slowPushes - before;
  deltas.push(...parser.push(text.slice(at)), ...parser.finish());
  return { slow, pushes, rebuilt: reconstruct(deltas) };
}

describe('streaming fast lane: chunks that end in a possible marker start', () => {
  for (const family of ['qwen3-coder', 'seed-oss', 'glm-4.5', 'minimax-m2', 'deepseek-v3.2', 'gemma-4']) {
    it(`${family}: a string argument full of marker look-alikes streams through the lane`, () => {
      const { text, prefix } = completion(family, 'Writing.', code);
      const from = text.indexOf('x = ');
      const to = text.lastIndexOf('# <i>') + 5;
      expect(from, text).toBeGreaterThan(0);
      const result = slowPushesWithin(family, prefix, text, from, to);
      expect(result.pushes).toBeGreaterThan(200);
      expect(result.slow).toBe(0);
      expect(result.rebuilt).toEqual(parse(text, { family, tools, prefix, idGenerator }));
    });
  }

  for (const family of familyIds) {
    it(`${family}: content with stray '<' streams through the lane`, () => {
      const { text, prefix } = completion(family, prose);
      const from = text.indexOf('one <b>');
      const to = text.lastIndexOf('six ');
      expect(from, text).toBeGreaterThanOrEqual(0);
      const result = slowPushesWithin(family, prefix, text, from, to);
      expect(result.pushes).toBeGreaterThan(200);
      expect(result.slow).toBe(0);
      expect(result.rebuilt).toEqual(parse(text, { family, tools, prefix, idGenerator }));
    });
  }
});

describe("a long call's raw text, kept for a withdraw", () => {
  // The kept text switches from one rope to flat blocks past a few KB (src/parse/engine/text-buffer.ts): a withdraw
  // must give back every character, whatever the chunk sizes around those edges.
  for (const family of ['hermes', 'qwen3-coder', 'gemma-4', 'kimi-k2']) {
    it(`${family}: a truncated 40 KB call comes back whole as content, streamed as in one batch`, () => {
      const { text, prefix } = completion(family, 'Writing.', code.repeat(40));
      const cut = text.slice(0, text.lastIndexOf('# <i>') + 3);
      const batch = parse(cut, { family, tools, prefix, idGenerator });
      expect(batch.tool_calls).toEqual([]);
      expect(batch.content!.length).toBeGreaterThan(40_000);
      for (const size of [4, 1000, 5000]) {
        const parser = createStreamParser({ family, tools, prefix, idGenerator });
        const deltas = [];
        for (let i = 0; i < cut.length; i += size) deltas.push(...parser.push(cut.slice(i, i + size)));
        deltas.push(...parser.finish());
        expect(reconstruct(deltas), `chunks of ${size}`).toEqual(batch);
      }
    });
  }
});

describe('general-way pushes follow the structure, not the text', () => {
  // A 4-byte push goes the general way only where structure is decided (a call opens, a header or tag completes, a
  // value closes); the text of reasoning, content and string arguments streams through the lane. So making every
  // text four times longer must not add general-way pushes.
  const line = (i: number) => `    value_${i} = compute("item-${i}", {"depth": ${i}, "label": "<b>${i}</b>"})  # step ${i}\n`;
  function turn(family: string, lines: number): { text: string; prefix: string } {
    const code = Array.from({ length: lines }, (_, i) => line(i)).join('');
    const calls = (family === 'gpt-oss' || family === 'llama-3' ? [0] : [0, 1, 2]).map((k) => ({
      id: `functions.write_file:${k}`, type: 'function' as const, function: { name: 'write_file', arguments: { path: `/srv/m_${k}.py`, content: code, overwrite: true } },
    }));
    const message = { role: 'assistant' as const, reasoning_content: `Plan: ${'think about the files. '.repeat(lines)}`, content: family === 'gpt-oss' ? '' : `Writing ${'the batch. '.repeat(lines)}`, tool_calls: calls };
    const formatted = formatTurn(message, { family, tools });
    return { text: formatted.completion, prefix: formatted.prompt };
  }
  function generalWay(family: string, lines: number): { slow: number; pushes: number } {
    const { text, prefix } = turn(family, lines);
    const options = { family, tools, prefix, idGenerator };
    const parser = createStreamParser(options);
    const before = parseWork.slowPushes;
    const deltas = [];
    let pushes = 0;
    for (let at = 0; at < text.length; at += 4, pushes++) deltas.push(...parser.push(text.slice(at, at + 4)));
    deltas.push(...parser.finish());
    expect(reconstruct(deltas)).toEqual(parse(text, options));
    return { slow: parseWork.slowPushes - before, pushes };
  }

  for (const family of familyIds) {
    it(`${family}: 4× the text, the same general-way pushes`, () => {
      const short = generalWay(family, 10);
      const long = generalWay(family, 40);
      expect(long.pushes).toBeGreaterThan(3 * short.pushes);
      // Where a 4-byte cut falls against a tag moves with the text before it: a push or two either way per call.
      expect(Math.abs(long.slow - short.slow), `${short.slow} → ${long.slow} of ${short.pushes} → ${long.pushes}`).toBeLessThanOrEqual(6);
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createStreamParser, formatTurn, parse } from '../../src/index.js';
import { parseWork } from '../../src/parse/engine/work.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, writeFileTools } from '../helpers/stream.js';

// Issue 18: pushes that only continue a structural marker (DeepSeek's `<｜tool▁call▁end｜>`, Kimi's
// `<|tool_call_begin|>`), a call header the header reader cannot decide yet, or a harmony header's words, used to go
// the general way (buffer join, step loop) only to wait for more text. The fast lane now holds them: only the push
// that completes the marker or the header goes the general way. Counted with the engine's push counters
// (src/parse/engine/work.ts), not timed.

const tools = writeFileTools;

function twoCalls(family: string): { text: string; prefix: string } {
  const call = (i: number) => ({ id: `functions.write_file:${i}`, type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a.py', content: 'x = 1' } } });
  const calls = family === 'gpt-oss' ? [call(0)] : [call(0), call(1)];
  const formatted = formatTurn({ role: 'assistant', content: '', tool_calls: calls }, { family, tools });
  return { text: formatted.completion, prefix: formatted.prompt };
}

/** Streams `text` one character a push; returns the offsets whose push went the general way, and the rebuilt message. */
function slowOffsets(family: string, prefix: string, text: string): { slow: Set<number>; rebuilt: unknown } {
  const parser = createStreamParser({ family, tools, prefix, idGenerator });
  const slow = new Set<number>();
  const deltas = [];
  for (let i = 0; i < text.length; i++) {
    const before = parseWork.slowPushes;
    deltas.push(...parser.push(text[i]!));
    if (parseWork.slowPushes > before) slow.add(i);
  }
  deltas.push(...parser.finish());
  return { slow, rebuilt: reconstruct(deltas) };
}

/** Every offset where `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** The general-way pushes among those of text[from..from+length). */
function slowWithin(slow: Set<number>, from: number, length: number): number[] {
  return [...slow].filter((at) => at >= from && at < from + length);
}

describe('streaming fast lane: structure that only waits for more text', () => {
  const markers: Record<string, string[]> = {
    'deepseek-v3.1': ['<｜tool▁call▁begin｜>', '<｜tool▁call▁end｜>'],
    'deepseek-r1': ['<｜tool▁call▁begin｜>', '<｜tool▁call▁end｜>'],
    'kimi-k2': ['<|tool_call_begin|>', '<|tool_call_end|>'],
  };
  for (const [family, names] of Object.entries(markers)) {
    it(`${family}: a call marker between calls streamed in pieces leaves the lane only where it completes`, () => {
      const { text, prefix } = twoCalls(family);
      const { slow, rebuilt } = slowOffsets(family, prefix, text);
      const spots = names.flatMap((marker) => occurrences(text, marker).map((at) => ({ at, marker })));
      expect(spots.length, text).toBe(4);
      for (const { at, marker } of spots) expect(slowWithin(slow, at, marker.length), `${marker} at ${at}`).toEqual([at + marker.length - 1]);
      expect(rebuilt).toEqual(parse(text, { family, tools, prefix, idGenerator }));
    });
  }

  for (const family of ['deepseek-v3.1', 'deepseek-r1', 'kimi-k2', 'mistral', 'gpt-oss']) {
    it(`${family}: the function name of a call header streams through the lane`, () => {
      const { text, prefix } = twoCalls(family);
      const { slow, rebuilt } = slowOffsets(family, prefix, text);
      const names = occurrences(text, 'write_file');
      expect(names.length, text).toBeGreaterThan(0);
      for (const at of names) expect(slowWithin(slow, at, 'write_file'.length), `name at ${at}`).toEqual([]);
      expect(rebuilt).toEqual(parse(text, { family, tools, prefix, idGenerator }));
    });
  }

  it("gpt-oss: a header's channel and format words stream through the lane, and so does a marker until it completes", () => {
    const { text, prefix } = twoCalls('gpt-oss');
    const { slow, rebuilt } = slowOffsets('gpt-oss', prefix, text);
    const words = text.indexOf(' json<|message|>');
    expect(words, text).toBeGreaterThan(0);
    expect(slowWithin(slow, words, ' json<|message|>'.length)).toEqual([words + ' json<|message|>'.length - 1]);
    expect(rebuilt).toEqual(parse(text, { family: 'gpt-oss', tools, prefix, idGenerator }));
  });

  // The tag-argument families: a parameter's key tag (and GLM's value opener) streamed in pieces waits in the lane, and
  // so does a string value's close tag and what follows it until the next key decides it; only the character that
  // completes a tag or the deciding key goes the general way. [x] marks such a push.
  const keyTags: Record<string, string[]> = {
    'qwen3-coder': ['<parameter[=]path[>]', '</parameter>\n<parameter=content[>]'],
    'seed-oss': ['<parameter[=]path[>]', '</parameter>\n<parameter=content[>]'],
    'glm-4.5': ['<arg_key[>]path</arg_key[>]\n<arg_value[>]', '</arg_value>\n<arg_key>content</arg_key[>]\n<arg_value[>]'],
    'minimax-m2': ['<parameter name=["]path"[>]', '</parameter>\n<parameter name="content"[>]'],
    'deepseek-v3.2': ['<｜DSML｜parameter[ ]name="path" string="true"[>]', '</｜DSML｜parameter>\n<｜DSML｜parameter name="content" string="true"[>]'],
  };
  for (const [family, marked] of Object.entries(keyTags)) {
    it(`${family}: parameter tags streamed in pieces leave the lane only where a tag completes or a key decides`, () => {
      const { text, prefix } = twoCalls(family);
      const { slow, rebuilt } = slowOffsets(family, prefix, text);
      const shown = text.split('').map((c, i) => (slow.has(i) ? `[${c}]` : c)).join('');
      for (const span of marked) expect(shown).toContain(span);
      expect(rebuilt).toEqual(parse(text, { family, tools, prefix, idGenerator }));
    });
  }
});

import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { commonPrefixLength, commonSuffixLength, MESSAGE_RENDER_CHARS } from '../../src/render/render-prefixes.js';
import { DEFAULT_MAX_PREFIX_RENDER_CHARS, render, toTrainingRecord, type Conversation } from '../../src/index.js';

// Training records locate each assistant turn by rendering the conversation up to it: work that grows with the
// square of the conversation. A long row must convert with the same spans, and a hostile one must be refused as one
// issue instead of running for hours or exhausting the heap.

function conversation(turns: number, size = 0): Conversation {
  const messages: Conversation['messages'] = [{ role: 'system', content: 'S' }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `q${t}${'x'.repeat(size)}` }, { role: 'assistant', content: `a${t}${'y'.repeat(size)}` });
  }
  return { messages };
}

async function convert(input: string, ...args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const io = memoryIO(input);
  const code = await run(['convert', '-', '--from', 'openai', '--to', 'qwen3', ...args], io);
  return { code, out: io.out().split('\n').filter(Boolean), err: io.err() };
}

describe('long conversations in training records', () => {
  it('a conversation whose prefixes outgrow the renderer memo keeps exact spans', () => {
    // 24 turns of 100 KB messages: ~5 MB of text, prefix renders far past the memo's 64 M characters, so early
    // prefixes are dropped and rendered again.
    const long = conversation(24, 100_000);
    const { record, issues } = toTrainingRecord(long, { family: 'qwen3' });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(record!.text).toBe(render({ family: 'qwen3', ...long }).text);
    // Each turn's span is its answer and the end-of-turn token; the last (after the last query) also its empty
    // reasoning. Compared as offsets, so a failure prints numbers, not megabytes.
    const text = record!.text;
    const answers = long.messages.filter((m) => m.role === 'assistant').map((m) => m.content as string);
    const expected = answers.map((answer, k) => {
      const at = text.indexOf(answer);
      const start = k === answers.length - 1 ? at - '<think>\n\n</think>\n\n'.length : at;
      return [start, at + answer.length + '<|im_end|>'.length];
    });
    expect(record!.spans).toEqual(expected);
    expect(text.slice(...record!.spans.at(-1)!).startsWith('<think>\n\n</think>\n\na23')).toBe(true);
  });

  it('over the budget, the row is one CONVERT_TOO_LONG issue and the rows after it still convert', async () => {
    const input = [conversation(1), conversation(40, 1_000), conversation(2)].map((c) => JSON.stringify(c)).join('\n');
    const { code, out, err } = await convert(input, '--max-prefix-render-chars', '200000');
    expect(code).toBe(1);
    expect(out).toHaveLength(2);
    expect(err).toContain('3 row(s), 2 converted, 1 not converted');
    expect(err).toMatch(/CONVERT_TOO_LONG +1 error\n/);
    expect(err).toMatch(/✖ these 81 messages are located by rendering the conversation up to each one: over 200000 characters in all \(the limit\); split the conversation, or raise the limit \(--max-prefix-render-chars\) → at messages \(line 2\)/);
    // The same row converts under the default budget: the limit, not the row, refused it.
    expect((await convert(input)).out).toHaveLength(3);
  });

  it('thousands of one-word messages are refused at the default budget, not rendered for minutes', () => {
    const hostile = conversation(4096);
    const { record, issues } = toTrainingRecord(hostile, { family: 'qwen3', line: 3 });
    expect(record).toBeNull();
    expect(issues.map((i) => [i.line, i.code, i.path])).toEqual([[3, 'CONVERT_TOO_LONG', 'messages']]);
    expect(issues[0]!.message).toContain(`these 8193 messages`);
    expect(issues[0]!.message).toContain(`over ${DEFAULT_MAX_PREFIX_RENDER_CHARS} characters`);
  });

  it('--help names the default budget and the per-message cost the library uses', async () => {
    const io = memoryIO();
    await run(['convert', '--help'], io);
    const help = io.out().replace(/\s+/g, ' ');
    expect(help).toContain(`a message counts ${MESSAGE_RENDER_CHARS} more`);
    expect(help).toContain(`(default ${DEFAULT_MAX_PREFIX_RENDER_CHARS})`);
  });

  it('--max-prefix-render-chars takes a positive integer', async () => {
    const { code, err } = await convert(JSON.stringify(conversation(1)), '--max-prefix-render-chars', '0');
    expect(code).toBe(2);
    expect(err).toContain('--max-prefix-render-chars must be a positive integer, got "0"');
  });
});

describe('common prefix and suffix of long texts', () => {
  // Compared a block at a time; every parting point near a block edge must come out as a character loop finds it.
  const naivePrefix = (a: string, b: string) => {
    let i = 0;
    while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
    return i;
  };
  const base = Array.from({ length: 70_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
  const points = [0, 1, 255, 256, 257, 511, 512, 513, 767, 768, 1023, 1024, 1025, 4096, 65535, 65536, 65537, 69_999];

  it.each(points)('strings parting at %i', (at) => {
    const other = `${base.slice(0, at)}#${base.slice(at + 1)}`;
    expect(commonPrefixLength(base, other)).toBe(naivePrefix(base, other));
    expect(commonPrefixLength(base, other)).toBe(at);
    const reversed = (s: string) => [...s].reverse().join('');
    const tailAt = base.length - 1 - at;
    expect(commonSuffixLength(base, other, base.length)).toBe(naivePrefix(reversed(base), reversed(other)));
    expect(commonSuffixLength(base, other, base.length)).toBe(tailAt);
    expect(commonSuffixLength(base, other, 300)).toBe(Math.min(300, tailAt));
  });

  it('equal strings, a prefix of the other, and empty strings', () => {
    expect(commonPrefixLength(base, base)).toBe(base.length);
    expect(commonPrefixLength(base, base.slice(0, 1500))).toBe(1500);
    expect(commonPrefixLength('', base)).toBe(0);
    expect(commonSuffixLength(base, base.slice(20_000), 50_000)).toBe(50_000);
    expect(commonSuffixLength(base, `${base}!`, base.length)).toBe(0);
  });
});

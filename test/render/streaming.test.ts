import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

const chat = (text: string) => JSON.stringify({ messages: [{ role: 'user', content: text }] });

describe('render streams JSONL', () => {
  // Issue 10 item 12: render read the whole JSONL input first (180 MB in, 409 MB RSS).
  it('prints each line\'s result before the input has ended', async () => {
    const stdin = new PassThrough();
    const io = { ...memoryIO(), stdin };
    const done = run(['render', '--family', 'qwen3', '-'], io);
    stdin.write(`${chat('one')}\n${chat('two')}\n`);
    // Bounded wait, not a timing assertion: the command loads the renderer on its first run, slow on a busy machine.
    for (let i = 0; i < 2000 && io.out().split('\n').length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(io.out().trim().split('\n')).toHaveLength(2);
    stdin.write(`${chat('three')}\n`);
    stdin.end();
    expect(await done).toBe(0);
    expect(io.out().trim().split('\n').map((line) => JSON.parse(line).text.includes('three'))).toEqual([false, false, true]);
  });

  it('renders a JSON array of conversations as a batch, and names a bad element by its row', async () => {
    const io = memoryIO(`[${chat('a')},{"nope": 1},${chat('b')}]`);
    expect(await run(['render', '--family', 'qwen3', '-'], io)).toBe(1);
    const lines = io.out().trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => Object.keys(line)[0])).toEqual(['text', 'error', 'text']);
    expect(lines[1].error).toMatch(/^row 2: /);
  });
});

// Issue 10 item 14: spans were UTF-16 only; Python slices code points. The goldens hold jinja2's code-point spans.
describe('render --offsets', () => {
  // A project conversation (no ../shared needed) full of astral characters: code points and UTF-16 units differ.
  const golden = join(import.meta.dirname, '../../fixtures/render/family/qwen3/unicode_and_foreign_markers.keep.spans.json');
  it('codepoint offsets equal the reference renderer\'s', async () => {
    const input = readFileSync(join(import.meta.dirname, '../../fixtures/conversations/unicode_and_foreign_markers.json'), 'utf8');
    const io = memoryIO(input);
    expect(await run(['render', '--family', 'qwen3', '--json', '--offsets', 'codepoint', '--now', '2025-01-15T12:00:00', '-'], io)).toBe(0);
    const expected = JSON.parse(readFileSync(golden, 'utf8'));
    expect(JSON.parse(io.out()).generation_spans).toEqual(expected.generation_spans);
  });

  it('byte offsets slice the UTF-8 bytes', async () => {
    const io = memoryIO(JSON.stringify({ messages: [{ role: 'user', content: 'é' }, { role: 'assistant', content: '漢字 🎉' }] }));
    expect(await run(['render', '--family', 'qwen2.5', '--json', '--offsets', 'byte', '-'], io)).toBe(0);
    const { text, generation_spans: spans } = JSON.parse(io.out());
    const [start, end] = spans[0];
    expect(Buffer.from(text, 'utf8').subarray(start, end).toString('utf8')).toBe('漢字 🎉<|im_end|>');
  });
});

import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

// Issue 18: render wrote one line per row, each a write (a system call on a pipe, a thread-pool hand-off on a file);
// 15,000 rows spent a third of their time waiting on writes. Counted, not timed.
describe('render writes a JSONL batch in pieces', () => {
  it('a thousand rows take a handful of writes, and every row is there in order', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }] }));
    const io = memoryIO(`${rows.join('\n')}\n`);
    let writes = 0;
    const write = io.stdout.write;
    io.stdout.write = (chunk: string) => {
      writes++;
      return write(chunk);
    };
    expect(await run(['render', '--family', 'qwen3', '-'], io)).toBe(0);
    const lines = io.out().trim().split('\n').map((line) => JSON.parse(line).text as string);
    expect(lines).toHaveLength(1000);
    expect(lines.every((text, i) => text === `<|im_start|>user\nquestion ${i}<|im_end|>\n`)).toBe(true);
    expect(writes).toBeLessThanOrEqual(10);
  });
});

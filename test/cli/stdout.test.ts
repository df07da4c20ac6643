import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/index.js';
import { cliProcess } from '../helpers/cli-process.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 18 (start-up): the CLI writes its stdout to descriptor 1 directly and creates process.stdout only when a write
// would block (src/cli/stdout.ts; bin-entry.test.ts checks that a one-row render then loads no node:net). What a real
// pipe receives: every byte, in order, well past what the pipe holds at once.
const chatfmt = cliProcess();
const renderToPipe = (argv: string[], stdin?: string) => chatfmt(argv, { stdin });

const weather = join(repoRoot, 'fixtures', 'conversations', 'weather.json');

describe('stdout written directly to a pipe', () => {
  it('a batch to a pipe is every row in order, as many bytes as a pipe holds several times over', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `row ${i} ${'x'.repeat(400)}` }] }));
    const result = await renderToPipe(['render', '--family', 'qwen3', '-'], rows.join('\n'));
    expect([result.code, result.err]).toEqual([0, '']);
    expect(result.out.length).toBeGreaterThan(4 * 65536);
    const texts = result.out.trim().split('\n').map((line) => (JSON.parse(line) as { text: string }).text);
    expect(texts).toEqual(rows.map((row) => render({ family: 'qwen3', ...JSON.parse(row) }).text));
  });

  it('usage errors still go to stderr as one line', async () => {
    const result = await renderToPipe(['render', '--family', 'qwen3', '--no-such-flag', weather]);
    expect(result.code).toBe(2);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toMatch(/^chatfmt: .*--no-such-flag/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 10 item 13: commander's usage errors were multi-line; every error is now one `chatfmt:` line, exit 2.
describe('usage errors', () => {
  for (const argv of [['parse', '--templat', 'x'], ['nosuch'], ['render', '--family'], ['validate', '--workers']]) {
    it(argv.join(' '), async () => {
      const io = memoryIO();
      expect(await run(argv, io)).toBe(2);
      expect(io.err()).toMatch(/^chatfmt: [^\n]+ \(see --help\)\n$/);
      expect(io.out()).toBe('');
    });
  }
});

// Issue 10 item 13: -o everywhere a command prints a result.
describe('-o writes the result to a file', () => {
  const outputs = tempDir('chatfmt-o-');
  for (const [argv, stdin] of [
    [['families'], ''],
    [['detect', 'fixtures/templates/chatml-thinking-prefill.jinja'], ''],
    [['transpile', '--from', 'qwen3', '--to', 'qwen2.5', '-'], 'Hi.'],
    [['render', '--family', 'qwen3', '-'], '{"messages": [{"role": "user", "content": "hi"}]}'],
    [['validate', '--workers', '1', '-'], '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}'],
  ] as const) {
    it(argv[0], async () => {
      const file = join(outputs.path, `${argv[0]}.out`);
      const io = memoryIO(stdin);
      expect(await run([...argv, '-o', file], io)).toBe(0);
      expect(io.out()).toBe('');
      expect(readFileSync(file, 'utf8').length).toBeGreaterThan(0);
    });
  }
});

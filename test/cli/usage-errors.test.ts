import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

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

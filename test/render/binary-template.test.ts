import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 10 item 15: `detect /bin/ls` said "no known family" instead of naming a binary file.
describe('a template path that is not text', () => {
  const dir = tempDir();
  const binary = dir.write('model.bin', '');
  writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x3e]));
  const latin1 = dir.write('latin1.jinja', '');
  writeFileSync(latin1, Buffer.from('{{ "caf\xe9" }}', 'latin1'));

  for (const argv of [['detect', binary], ['render', '--template', binary, '-'], ['parse', '--template', binary, '-']]) {
    it(`${argv[0]} names a binary file in one line, exit 2`, async () => {
      const io = memoryIO('{"messages": []}', dir.path);
      expect(await run(argv, io)).toBe(2);
      expect(io.err()).toMatch(/^chatfmt: .*model\.bin: is a binary file, expected a template \(text\)\n$/);
    });
  }

  it('names a file that is not UTF-8', async () => {
    const io = memoryIO('', dir.path);
    expect(await run(['detect', latin1], io)).toBe(2);
    expect(io.err()).toMatch(/latin1\.jinja: is not UTF-8 text/);
  });
});

import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, symlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 17 item 6 (brief items 1 and 4): every whole-input reader counts bytes whatever the source, a named pipe
// with no writer does not hang, and a symlink loop is named as one.
const dir = tempDir('chatfmt-input-');
const tools = dir.write('tools.json', JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }]));

async function cli(argv: string[], options: { stdin?: string; limit?: number } = {}) {
  const io = memoryIO(options.stdin ?? '', dir.path);
  if (options.limit !== undefined) io.env.CHATFMT_MAX_INPUT_BYTES = String(options.limit);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const fifos: string[] = [];
function fifo(name: string): string {
  const path = join(dir.path, name);
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

// A reader that old code left blocked in open() is released, so the test worker can end.
afterAll(() => {
  for (const path of fifos) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader left: nothing to release.
    }
  }
});

/** Writes `text` into a named pipe once a reader opens it, then closes it (what `producer > pipe` does). */
async function writeInto(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

const oneLine = /^chatfmt: [^\n]+\n$/;

describe('inputs are bounded whatever their source', () => {
  it('stdin over the limit stops with one line (batch parse)', async () => {
    const result = await cli(['parse', '--family', 'qwen3'], { stdin: 'x'.repeat(5000), limit: 4096 });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(oneLine);
    expect(result.err).toBe('chatfmt: stdin: larger than 4096 bytes (the input limit)\n');
    expect(result.out).toBe('');
  });

  it('stdin over the limit stops --stream too', async () => {
    const result = await cli(['parse', '--family', 'qwen3', '--stream'], { stdin: 'x'.repeat(5000), limit: 4096 });
    expect([result.code, result.err]).toEqual([2, 'chatfmt: stdin: larger than 4096 bytes (the input limit)\n']);
  });

  it('a file over the limit is refused, whether completion, --tools or --prompt', async () => {
    const big = dir.write('big.txt', 'y'.repeat(5000));
    for (const argv of [['parse', '--family', 'qwen3', big], ['parse', '--family', 'qwen3', '--tools', big, '-'], ['parse', '--family', 'qwen3', '--prompt', big, '-'], ['transpile', '--from', 'qwen3', '--to', 'hermes', big]]) {
      const result = await cli(argv, { limit: 4096 });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toBe(`chatfmt: ${big}: larger than 4096 bytes (the input limit)\n`);
    }
  });

  it('input at the limit is read', async () => {
    const result = await cli(['parse', '--family', 'qwen3'], { stdin: 'x'.repeat(4096), limit: 4096 });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).content).toBe('x'.repeat(4096));
  });

  it('a device with no end (/dev/zero) stops at the limit', async () => {
    // Old code: stat says 0 bytes, so the whole device was read (4 GB before the process died).
    for (const argv of [['parse', '--family', 'qwen3', '/dev/zero'], ['parse', '--family', 'qwen3', '--tools', '/dev/zero', '-'], ['parse', '--family', 'qwen3', '--prompt', '/dev/zero', '-']]) {
      const result = await cli(argv, { limit: 65536 });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toBe('chatfmt: /dev/zero: larger than 65536 bytes (the input limit)\n');
    }
  });

  it('a bad limit is a usage error', async () => {
    const result = await cli(['parse', '--family', 'qwen3'], { stdin: 'x', limit: 'lots' as unknown as number });
    expect([result.code, result.err]).toEqual([2, 'chatfmt: CHATFMT_MAX_INPUT_BYTES must be a positive integer, got "lots"\n']);
  });
});

describe.skipIf(!hasMkfifo)('named pipes', () => {
  it('a pipe over the limit stops at the limit (its size says 0)', async () => {
    const path = fifo('big.fifo');
    const running = cli(['parse', '--family', 'qwen3', path], { limit: 4096 });
    await writeInto(path, 'z'.repeat(10000)).catch(() => {});
    const result = await running;
    expect([result.code, result.err]).toEqual([2, `chatfmt: ${path}: larger than 4096 bytes (the input limit)\n`]);
  });

  it('a pipe with a writer is read whole', async () => {
    const path = fifo('completion.fifo');
    const running = cli(['parse', '--family', 'qwen3', path]);
    await writeInto(path, 'Hello from a pipe.');
    const result = await running;
    expect([result.code, result.err]).toEqual([0, '']);
    expect(JSON.parse(result.out).content).toBe('Hello from a pipe.');
  });

  it('a pipe with no writer is an error, not a hang (completion, --tools, conversations)', async () => {
    for (const [argv, name] of [
      [['parse', '--family', 'qwen3', 'lonely.fifo'], 'lonely.fifo'],
      [['parse', '--family', 'qwen3', '--tools', 'lonely-tools.fifo', '-'], 'lonely-tools.fifo'],
      [['render', '--family', 'qwen3', 'lonely-chat.fifo'], 'lonely-chat.fifo'],
    ] as const) {
      fifo(name);
      const result = await cli([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toBe(`chatfmt: ${name}: a named pipe with no writer (start the program that writes to it first, or pipe into stdin)\n`);
    }
  });

  it('a conversation from a pipe renders', async () => {
    const path = fifo('chat.fifo');
    const running = cli(['render', '--family', 'qwen3', path]);
    await writeInto(path, '{"messages": [{"role": "user", "content": "hi"}]}');
    const result = await running;
    expect([result.code, result.err, result.out]).toEqual([0, '', '<|im_start|>user\nhi<|im_end|>\n']);
  });
});

describe('a symlink loop is named as one', () => {
  const loopA = join(dir.path, 'loop-a');
  symlinkSync(join(dir.path, 'loop-b'), loopA);
  symlinkSync(loopA, join(dir.path, 'loop-b'));
  for (const argv of [
    ['parse', '--family', 'qwen3', 'loop-a'],
    ['parse', '--family', 'qwen3', '--tools', 'loop-a', '-'],
    ['render', '--family', 'qwen3', 'loop-a'],
    ['convert', 'loop-a', '--from', 'openai', '--to', 'openai'],
    ['validate', '--workers', '1', 'loop-a'],
  ]) {
    it(argv.slice(0, 3).join(' '), async () => {
      const result = await cli(argv);
      expect(result.code).toBe(2);
      expect(result.err).toBe('chatfmt: loop-a: too many levels of symbolic links (a symlink loop)\n');
    });
  }

  it('a missing file is still "no such file"', async () => {
    expect((await cli(['parse', '--family', 'qwen3', 'nope.txt'])).err).toBe('chatfmt: nope.txt: no such file\n');
  });
});

describe('tools from a file still work', () => {
  it('--tools names calls', async () => {
    const result = await cli(['parse', '--family', 'qwen3', '--tools', tools], { stdin: '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).tool_calls[0].function.name).toBe('get_weather');
  });
});

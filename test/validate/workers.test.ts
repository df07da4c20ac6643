import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeSummaries, validateDataset, type ValidationSummary } from '../../src/index.js';
import { cli, collect, datasets, readReport, root, tempDir } from './helpers.js';

// Worker threads run the compiled entry (dist/validate/worker.js); `npm run build` precedes the tests in CI.
const built = existsSync(join(root, 'dist', 'validate', 'worker.js'));
const dir = tempDir();

// ~2,600 rows: the planted-fault lines repeated, so faults land in every batch and shard block.
const big = join(dir, 'big.jsonl');
const faultLines = readFileSync(join(datasets, 'invalid', 'openai.jsonl'));
writeFileSync(big, Buffer.concat(Array.from({ length: 80 }, () => faultLines)));

describe.skipIf(!built)('worker threads', () => {
  it('workers=1 and workers=2 give identical issues in identical order (library, small batches)', async () => {
    const one = await collect(validateDataset(big, { workers: 1, batchSize: 16, maxRowBytes: 4096 }));
    const two = await collect(validateDataset(big, { workers: 2, batchSize: 16, maxRowBytes: 4096 }));
    expect(one.length).toBeGreaterThan(2000);
    expect(two).toEqual(one);
  });

  it('the CLI report is byte-identical with --workers 1 and --workers 2', async () => {
    const reports = [join(dir, 'w1.jsonl'), join(dir, 'w2.jsonl')];
    const [a, b] = [await cli(['--workers', '1', '--report', reports[0]!, '--format', 'json', big]), await cli(['--workers', '2', '--report', reports[1]!, '--format', 'json', big])];
    expect(a.code).toBe(1);
    expect(b.code).toBe(1);
    expect(b.out).toBe(a.out);
    expect(readFileSync(reports[1]!, 'utf8')).toBe(readFileSync(reports[0]!, 'utf8'));
    const lines = readReport(reports[0]!).map((i) => i.line);
    expect(lines).toEqual([...lines].sort((x, y) => x - y));
  });

  it('stopping early closes the pool; summary() then rejects instead of hanging', async () => {
    const validation = validateDataset(big, { workers: 2, batchSize: 16 });
    let seen = 0;
    for await (const _ of validation) if (++seen === 5) break;
    await expect(validation.summary()).rejects.toThrow(/stopped before the end/);
  });

  it('a template that cannot load fails before any row, with one line', async () => {
    const result = await cli(['--workers', '2', '--template', join(dir, 'missing.jinja'), big]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: [^\n]+\n$/);
  });
});

describe('shards and merge', () => {
  it('shards of a split cover every row once; merging them equals the whole run', async () => {
    const whole = await validateDataset(big, { maxRowBytes: 4096, shardBlock: 100 }).summary();
    const parts: ValidationSummary[] = [];
    for (let index = 1; index <= 3; index++) {
      parts.push(await validateDataset(big, { maxRowBytes: 4096, shardBlock: 100, shard: { index, count: 3 } }).summary());
    }
    expect(parts.map((p) => p.rows).reduce((a, b) => a + b)).toBe(whole.rows);
    expect(parts.every((p) => p.rows > 0 && p.errors > 0)).toBe(true);
    const merged = mergeSummaries([parts[2], parts[0], parts[1]]);
    expect(merged.shards).toEqual([1, 2, 3].map((index) => ({ index, count: 3 })));
    const { shards: _shards, ...rest } = merged;
    expect(rest).toEqual(whole);
  });

  it('CLI: --shard i/n with --format json, then --merge', async () => {
    const files: string[] = [];
    for (const shard of ['1/2', '2/2']) {
      const result = await cli(['--workers', '1', '--format', 'json', '--shard', shard, big]);
      expect(result.code).toBe(1);
      const file = join(dir, `part${shard.replace('/', 'of')}.json`);
      writeFileSync(file, result.out);
      files.push(file);
    }
    const whole = JSON.parse((await cli(['--workers', '1', '--format', 'json', big])).out) as ValidationSummary;
    const merged = await cli(['--merge', '--format', 'json', ...files]);
    expect(merged.code).toBe(1);
    const { shards, ...rest } = JSON.parse(merged.out) as ValidationSummary;
    expect(shards).toHaveLength(2);
    expect(rest).toEqual(whole);

    const text = await cli(['--merge', ...files]);
    expect(text.out).toContain(`${whole.errors.toLocaleString('en-US')} errors`);
  });

  it('refuses incomplete or mixed shard sets', async () => {
    const part = await validateDataset(big, { shard: { index: 1, count: 2 } }).summary();
    const whole = await validateDataset(big).summary();
    expect(() => mergeSummaries([part])).toThrowError(/missing shard\(s\) 2\/2/);
    expect(() => mergeSummaries([part, part])).toThrowError(/given twice/);
    expect(() => mergeSummaries([part, whole])).toThrowError(/sharded and unsharded/);
    expect(() => mergeSummaries([{ not: 'a summary' }])).toThrowError(/not a chatfmt validate JSON summary/);
    const file = join(dir, 'part1.json');
    writeFileSync(file, JSON.stringify(part));
    const result = await cli(['--merge', file]);
    expect(result.code).toBe(2);
    expect(result.err).toBe('chatfmt: missing shard(s) 2/2\n');
  });

  it('merging summaries of different files adds them up', () => {
    const a = { version: 1, inputs: ['a'], shape: 'openai', rows: 3, rowsWithErrors: 1, errors: 2, warnings: 0, byCode: { ROW_INVALID_JSON: { severity: 'error', count: 2 } }, examples: [] };
    const b = { ...a, inputs: ['b'], shape: 'sharegpt', warnings: 1, byCode: { TOOLS_NOT_DECLARED: { severity: 'warning', count: 1 } } };
    expect(mergeSummaries([a, b])).toMatchObject({ inputs: ['a', 'b'], shape: 'mixed', rows: 6, errors: 4, warnings: 1, byCode: { ROW_INVALID_JSON: { count: 2 }, TOOLS_NOT_DECLARED: { count: 1 } } });
  });
});
